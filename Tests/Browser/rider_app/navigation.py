"""Scenario 6: navigation along the way to the customer (RDR-017: banner, voice, re-route, lost GPS, exit and
resume), and the routing service down (the message, and the task buttons still work)."""

import re
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from browser_support import HOME, STORE, Refused, canvas_ink, check, parse_time

from .api import rider_identity, status_events, task_at
from .geometry import distance_to_line, metres, resample, road_route
from .page import Abort, RiderPage, need, sign_in, status_noise, wait, within
from .words import (AT_DESTINATION, AT_STORE, EXIT_NAV, MUTE, NAV_DOWN, PICKED_UP, RECENTER, RESUME_NAV,
                    SEARCHING_GPS, TO_CUSTOMER, TO_VENDOR, UNMUTE)


def navigate(page, server, task_id):
    """RDR-017 along the way to the customer: banner, voice, re-route, lost GPS, exit and resume."""
    start = page.position
    route = road_route(server, start, (HOME["lat"], HOME["lon"]))
    before = len(page.requests("/route"))
    page.tap(TO_CUSTOMER if page.control(TO_CUSTOMER) is not None else RESUME_NAV)
    need(page.wait_control(EXIT_NAV, 10), "the navigation screen")
    driven = {"started": time.time(), "points": [start]}
    wait("navigation: the route is fetched", lambda: len(page.requests("/route")) > before, 10)
    wait("navigation: the map is drawn", lambda: canvas_ink(page.driver)[0] > 2000, 10)
    check(page.control(MUTE) is not None or page.control(UNMUTE) is not None, "navigation: a mute button")
    page.screen("navigation", must_show=EXIT_NAV)

    points = resample(route["points"], 25)
    known = set(route["instructions"])
    seen = []

    def banner():
        text = page.text()
        shown = [instruction for instruction in known if instruction in text]
        if shown and (not seen or seen[-1] != shown[0]):
            seen.append(shown[0])

    # Along the first 40 % of the route, a fix every 120 ms.
    detour_at = int(len(points) * 0.4)
    frames_before = canvas_ink(page.driver)[1]
    for point in points[1:detour_at]:
        page.move(point)
        time.sleep(0.12)
        banner()
    check(canvas_ink(page.driver)[1] != frames_before, "navigation: the map follows the moving position")
    check(len(seen) >= 2, f"navigation: the manoeuvre banner changes along the way ({seen[:4]})")
    distance_text = re.search(r"\d+(\.\d+)? ?(m|km)\b", page.text())
    check(distance_text is not None, "navigation: distances are shown (next manoeuvre, remaining)")
    check(re.search(r"\d{1,2}:\d{2}|\d+ ?min", page.text()) is not None, "navigation: an ETA is shown")

    # Off the route: a side road for 150-odd metres; the page asks the server for a new route from there.
    detour = off_route(server, points[detour_at - 1], route["points"])
    before = len(page.requests("/route"))
    for point in detour:
        page.move(point)
        time.sleep(0.3)
    rerouted = wait("navigation: leaving the route fetches a new route from where the rider is",
                    lambda: len(page.requests("/route")) > before, 10)
    if rerouted:
        fresh = page.requests("/route")[-1]
        where = re.search(r"from=([-\d.]+)(?:,|%2C)([-\d.]+)", fresh)
        check(where and metres((float(where.group(1)), float(where.group(2))), detour[-1]) < 60,
              f"navigation: the new route starts at the rider's position ({fresh.split('?')[-1][:60]})")

    # On along the new route; half way the fixes stop.
    second = road_route(server, detour[-1], (HOME["lat"], HOME["lon"]))
    known |= second["instructions"]
    rest = resample(second["points"], 25)
    middle = len(rest) // 2
    for point in rest[1:middle]:
        page.move(point)
        time.sleep(0.12)
        banner()
    silent = time.time()
    # Panning the map offers Re-center.
    canvas = page.driver.find_elements(By.TAG_NAME, "canvas")
    if canvas:
        ActionChains(page.driver).move_to_element(canvas[0]).click_and_hold().move_by_offset(60, 80)\
            .move_by_offset(30, 40).release().perform()
        if page.wait_control(RECENTER, 5):
            page.tap(RECENTER)
            wait("navigation: Re-center goes away once the map follows the rider again",
                 lambda: page.control(RECENTER) is None, 5)
    searching = wait(f"navigation: '{SEARCHING_GPS}' when fixes stop (gpsLostAfterS 10)",
                     lambda: page.shows(SEARCHING_GPS), max(1, silent + 16 - time.time()))
    if searching:
        print(f"     (shown {time.time() - silent:.1f} s after the last fix)", flush=True)
        page.screen("navigation-searching-gps", must_show=SEARCHING_GPS)
    page.move(rest[middle])
    wait("navigation: the next fix carries on by itself", lambda: not page.shows(SEARCHING_GPS), 8)

    mute = page.control(MUTE)
    if mute is not None:
        page.press(mute)
        check(page.wait_control(UNMUTE, 3), "navigation: 'Mute' turns into 'Unmute'")
        muted_from = len(page.spoken())
    for point in rest[middle + 1:]:
        page.move(point)
        time.sleep(0.12)
        banner()
    if mute is not None:
        check(len(page.spoken()) == muted_from, "navigation: nothing is spoken while muted")
        page.tap(UNMUTE)
    spoken = page.spoken()
    announcements = route["announcements"] | second["announcements"]
    check(any(text in announcements for text in spoken),
          f"navigation: instructions are spoken ({len(spoken)} utterances, e.g. {spoken[:2]})")
    check(len(seen) >= 3, f"navigation: the banner went through the route's manoeuvres ({len(seen)} seen)")
    if page.control(EXIT_NAV) is not None:
        page.tap(EXIT_NAV)
    need(page.wait_control(AT_DESTINATION, 10), "the task screen after Exit Navigation")
    check(page.control(RESUME_NAV) is not None or page.control(TO_CUSTOMER) is not None,
          "navigation: after Exit Navigation it can be resumed")
    driven["points"] += points[1:detour_at] + detour + rest
    return driven


def off_route(server, at, line):
    """A side road from `at`: fixes that end well away (> 70 m) from the route for several fixes in a row."""
    candidates = [(43.7440, 7.4300), (43.7311, 7.4251), (43.7347, 7.4206), (43.7420, 7.4230), (43.7370, 7.4330),
                  (43.7270, 7.4150), (43.7455, 7.4340)]
    for target in candidates:
        try:
            side = road_route(server, at, target)
        except Refused:
            continue
        samples = resample(side["points"], 20)
        away = [distance_to_line(point, line) > 70 for point in samples]
        for index in range(len(samples) - 5):
            if all(away[index:index + 5]):
                return samples[:index + 5]
    raise Abort("no side road found to leave the route by")


def routing_down(server):
    rider_id, rider = rider_identity("Femi Ade")
    order_id, task_id, _ = task_at(server, rider_id, rider, [])
    status, problem = None, {}
    try:
        server.call("GET", f"/api/v1/rider/tasks/{task_id}/route?from={STORE['lat']},{STORE['lon']}", rider,
                    expect=(503,))
        status = 503
    except Refused as error:
        problem = {"error": str(error)}
    check(status == 503, f"routing down: the server answers 503 NAVIGATION_UNAVAILABLE {problem}")
    page = RiderPage(server, "routing down", position=(STORE["lat"] + 0.003, STORE["lon"]))
    try:
        sign_in(page, rider, None, (TO_VENDOR,))
        page.allow(*status_noise(503))
        page.tap(TO_VENDOR)
        if page.wait_text(NAV_DOWN, 10):
            page.screen("navigation-unavailable", must_show=NAV_DOWN)
        page.allow()
        if page.control(AT_STORE) is None and page.control(EXIT_NAV) is not None:
            page.tap(EXIT_NAV)
        page.move(STORE)
        window = page.tap(AT_STORE)
        arrived = wait("routing down: the task buttons still work (ARRIVED_AT_STORE recorded)",
                       lambda: status_events(server, order_id), 10)
        if arrived:
            check(arrived[0]["status"] == "ARRIVED_AT_STORE" and within(parse_time(arrived[0]["occurredAt"]), window),
                  "routing down: it is the tapped status at the tap time")
        page.wait_control(PICKED_UP, 10)
    finally:
        page.close()
