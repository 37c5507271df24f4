"""Issue 57, the rider's part of a whole shift without a wrong turn: two offers at once (the newest on top, each
with its own countdown), a problem reported with its kind and a note (the customer told in fixed words, never the
note), the door leg's words (what is ahead, "You have arrived" only at the door), arriving straight into the proof
step; an idle online rider heard from at least every 30 s; and a task taken away by a dispatcher, said why."""

import math
import re
import time

from selenium.webdriver.common.by import By

from browser_support import HOME, STORE, check

from .api import DISPATCHER, new_order, offer, rider_identity
from .geometry import decode_polyline, metres, resample
from .page import RiderPage, enter_otp, go_online, need, sign_in, wait
from .words import (ACCEPT, AT_DESTINATION, AT_STORE, COMPLETE, DECLINE, DELIVERED, ENTER_OTP, EXIT_NAV, PICKED_UP,
                    REPORT, TO_CUSTOMER)

NOTE = "Shutter half down, owner says five minutes"
TWO_OFFERS = "2 delivery offers"
TELLS_BOTH = "The dispatcher and the customer will be told"
TOLD_BOTH = "The dispatcher and the customer have been told"
ARRIVED = "You have arrived"


def cards(page):
    """The offer cards on screen, top first: (offer id, the card's words)."""
    return [(card.get_attribute("data-offer-id"), card.text)
            for card in page.driver.find_elements(By.CSS_SELECTOR, "#offer-list > li") if card.is_displayed()]


def door_leg(server):
    """A door beside a long street (Avenue Albert II in Fontvieille, on the way from the store to HOME), a point on
    that street about 110 m before it, and the street between them: the short last leg of the issue."""
    route = server.call("GET", f"/api/v1/routes?from={STORE['lat']},{STORE['lon']}&to={HOME['lat']},{HOME['lon']}",
                        DISPATCHER)
    points = decode_polyline(route["geometry"])
    steps = [step for leg in route["legs"] for step in leg["steps"]]
    street = next(step for step in steps if step["name"] == "Avenue Albert II" and step["distanceM"] > 180)
    line = resample(points[street["geometryStart"]:street["geometryEnd"] + 1], 5)
    near_end, before = line[-12], line[-13]
    # 8 m to the right of the way the rider drives, 60 m before the street's end (clear of its side roads and the
    # roundabout at its start), and the start 110 m before it.
    east = (near_end[1] - before[1]) * math.cos(math.radians(near_end[0]))
    north = near_end[0] - before[0]
    scale = 8 / 111_320 / math.hypot(east, north)
    door = (near_end[0] - east * scale, near_end[1] + north * scale / math.cos(math.radians(near_end[0])))
    return {"lat": door[0], "lon": door[1]}, line[-34], line[-34:-11:3] + [line[-12]]


def whole_shift(server):
    rider_id, rider = rider_identity("Dev Patel")
    page = RiderPage(server, "shift", position=STORE)
    try:
        sign_in(page, rider, "Dev Patel")
        online_at = time.time()
        go_online(page)

        # Item 5: a demo offer, then a dispatcher's: both on screen at once, the newest on top, each counting down.
        first_id, _ = new_order(server, ref="DEMO-5")
        first = offer(server, first_id, rider_id)[0]["offerId"]
        need(page.wait_control(ACCEPT, 10), "the first offer")
        time.sleep(1.2)
        door, start, street = door_leg(server)
        second_id, customer = new_order(server, ref="DISPATCH-5", home=door)
        second = offer(server, second_id, rider_id)[0]["offerId"]
        shown = wait("shift: both offers are on screen at once", lambda: len(cards(page)) == 2 and cards(page), 10,
                     page=page)
        if shown:
            check([offer_id for offer_id, _ in shown] == [second, first],
                  "shift: the newest offer (the dispatcher's) is on top")
            check(page.shows(TWO_OFFERS), f"shift: the title says '{TWO_OFFERS}'")
            seconds = [int(re.search(r"(\d+) s", words).group(1)) for _, words in shown]
            check(all(words.count(ACCEPT) == 1 and DECLINE in words for _, words in shown),
                  "shift: each offer has its own Accept Task and Decline")
            check(seconds[0] > seconds[1], f"shift: each offer has its own countdown ({seconds})")
            check(shown[0][1].startswith("Order DISPATCH-5") and shown[1][1].startswith("Order DEMO-5"),
                  "shift: each offer names its order, so two from one store are told apart")
            page.screen("offers-two", must_show=TWO_OFFERS)
        # Declining the older one leaves the dispatcher's; the server hears of the decline.
        older = page.driver.find_element(By.CSS_SELECTOR, f"#offer-list > li[data-offer-id='{first}'] .decline")
        page.press(older)
        wait("shift: the declined offer goes and the other stays",
             lambda: [offer_id for offer_id, _ in cards(page)] == [second], 5, page=page)
        page.tap(ACCEPT)
        need(page.wait_control(AT_STORE, 10), "the task of the dispatcher's offer")
        check(server.call("GET", f"/api/v1/orders/{second_id}", DISPATCHER)["assignedRiderId"] == rider_id,
              "shift: the rider has the dispatcher's order")

        # Item 9: the kinds of this point of the delivery, a note, and who will be told before sending.
        page.tap(REPORT)
        need(page.wait_control("Store closed", 5), "the kinds of problems before pickup")
        check(page.control("Order not ready") is not None and page.control("Vehicle trouble") is not None
              and page.control("Unsafe to continue") is not None, "shift: the store's problems and the rider's own")
        check(page.control("Customer unavailable") is None, "shift: no customer's problem before pickup")
        page.tap("Store closed")
        page.type_into("Note for the dispatcher (optional)", NOTE)
        check(page.wait_text(TELLS_BOTH, 3), "shift: the report says the customer will be told too")
        page.screen("report-kinds", must_show=TELLS_BOTH)
        page.tap("Send report")
        page.wait_text(TOLD_BOTH, 10)
        issues = server.call("GET", f"/api/v1/orders/{second_id}/issues", DISPATCHER)["issues"]
        check([(item["type"], item.get("note")) for item in issues] == [("STORE_CLOSED", NOTE)],
              f"shift: the server has the kind and the note ({issues})")
        told = [item for item in server.call("GET", f"/api/v1/orders/{second_id}/notifications", DISPATCHER)
                ["notifications"] if item.get("recipientRole") == "customer" and "store is closed" in
                (item.get("body") or "")]
        check(told and all("Shutter" not in (item.get("body") or "") for item in told),
              f"shift: the customer is told the fixed words, not the note ({[item.get('body') for item in told]})")

        # Item 6: navigation from about 140 m before the door; the banner speaks of what is ahead.
        page.tap(AT_STORE)
        page.tap(PICKED_UP, 10)
        need(page.wait_control(AT_DESTINATION, 10), "the task after pickup")
        page.move(start)
        time.sleep(0.5)
        page.tap(TO_CUSTOMER)
        need(page.wait_control(EXIT_NAV, 10), "the navigation screen")
        ahead = wait("shift: the banner says where the destination is ahead",
                     lambda: re.search(r"Your destination is (on the left|on the right|ahead)", page.text()), 10,
                     page=page)
        banner = page.driver.find_element(By.ID, "maneuver-banner").text
        check(ARRIVED not in banner, f"shift: no 'You have arrived' at the start of the leg ({banner!r})")
        check(re.search(r"\d+ m", banner) is not None, f"shift: the distance to the door is on the banner ({banner!r})")
        if ahead:
            page.screen("navigation-door-leg", must_show=ahead.group(0))
        time.sleep(0.5)
        early = [text for text in page.spoken() if "arrived" in text.lower()]
        check(not early, f"shift: nothing spoken says 'arrived' at the start of the leg ({page.spoken()})")
        for point in street[1:]:
            page.move(point)
            time.sleep(0.25)
        wait("shift: at the door the banner says 'You have arrived'",
             lambda: ARRIVED in page.driver.find_element(By.ID, "maneuver-banner").text, 8, page=page)

        # Item 7: arriving opens the proof step at once, the code field ready; no Exit Navigation to find.
        page.tap(AT_DESTINATION)
        wait("shift: arriving closes navigation", lambda: page.control(EXIT_NAV) is None, 8, page=page)
        need(page.wait_text(ENTER_OTP, 8), "the proof step")
        focused = page.driver.execute_script("return document.activeElement && document.activeElement.id")
        check(focused == "otp", f"shift: the code field has the focus ({focused})")
        page.screen("arrived-proof", must_show=ENTER_OTP)
        enter_otp(page, server.call("GET", f"/api/v1/customer/orders/{second_id}", customer)["deliveryOtp"])
        page.tap(DELIVERED, 10)
        page.wait_text(COMPLETE, 10)

        # Item 4: online and standing still, the page is heard from at least every 30 s (the delivery's own upload
        # went with the Delivered tap; the next is the heartbeat's).
        time.sleep(1)
        since = time.time()
        heard = wait("shift: an idle online rider's position goes to the server within 30 s, standing still",
                     lambda: location_posts(page, since), 31, page=page)
        fleet = server.call("GET", "/api/v1/riders", DISPATCHER)
        mine = next(item for item in fleet["riders"] if item["riderId"] == rider_id)
        check(mine.get("position") == "FRESH" and fleet.get("positionStaleAfterS") == 90,
              f"shift: the fleet has the rider FRESH, stale only past 90 s ({mine.get('position')}, "
              f"{fleet.get('positionStaleAfterS')})")
        if heard:
            print(f"     (online {time.time() - online_at:.0f} s; the idle upload came {heard[0] - since:.0f} s "
                  f"after the delivery's)", flush=True)

        # Item 9: a task a dispatcher takes away says why, in the fixed words of the reason's kind.
        taken_id, _ = new_order(server, ref="TAKEN-9")
        offer(server, taken_id, rider_id)
        page.tap(ACCEPT, 10)
        need(page.wait_control(AT_STORE, 10), "the task to be taken away")
        server.call("POST", f"/api/v1/orders/{taken_id}/reassign", DISPATCHER,
                    {"reason": "Dev stuck behind the parade", "reasonKind": "RIDER_DELAYED"})
        told = page.wait_text("Order TAKEN-9 went to another rider because the pickup was running late", 10)
        check(not page.shows("parade"), "shift: the dispatcher's own words do not reach the rider")
        if told:
            page.screen("reassigned", must_show="went to another rider")
    finally:
        page.close()


def location_posts(page, since):
    """The times (seconds since the epoch) of the page's location uploads after `since`."""
    page.drain()
    return [message["params"]["wallTime"] for message in page.network
            if message.get("method") == "Network.requestWillBeSent"
            and "/api/v1/rider/locations" in message["params"]["request"]["url"]
            and message["params"]["request"]["method"] == "POST" and message["params"]["wallTime"] >= since]
