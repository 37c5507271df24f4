"""Scenarios 4 and 7: two taps without a connection, the page reloaded offline, then back online; the server's
answer lost, or a 5xx (the tap waits, nothing is lost, nothing is sent twice), and a problem report."""

import json
import time

from browser_support import STORE, check, parse_time

from .api import events, rider_identity, status_events, task_at
from .page import OFFLINE_NOISE, RiderPage, need, sign_in, status_noise, wait, within
from .words import AT_DESTINATION, AT_STORE, PICKED_UP, REPORT, RETRYING


def offline_taps(server):
    rider_id, rider = rider_identity("Dev Patel")
    order_id, task_id, _ = task_at(server, rider_id, rider, [])
    page = RiderPage(server, "offline", position=STORE)
    try:
        sign_in(page, rider, None, (AT_STORE,))
        controlled = wait("offline: the service worker controls the page",
                          lambda: page.driver.execute_script("return !!(navigator.serviceWorker && "
                                                             "navigator.serviceWorker.controller)"), 8)
        if not controlled:
            page.driver.refresh()
            need(page.wait_control(AT_STORE, 10), "the task after a reload")
            check(page.driver.execute_script("return !!navigator.serviceWorker.controller"),
                  "offline: the service worker controls the page after one reload")
        check(page.devtools.service_workers(), "offline: a service worker is running")

        page.allow(*OFFLINE_NOISE)
        page.devtools.set_offline(True)
        time.sleep(0.5)
        taps = {"ARRIVED_AT_STORE": page.tap(AT_STORE)}
        need(page.wait_control(PICKED_UP, 5), "'Picked Up' offline (the tap is kept, the screen goes on)")
        taps["PICKED_UP"] = page.tap(PICKED_UP)
        need(page.wait_text(RETRYING, 10), "the retrying note")
        check(page.queue_length() == 2, f"offline: both taps wait in the queue ({page.queue_length()})")
        page.screen("offline-retrying", must_show=RETRYING)

        page.driver.refresh()
        need(wait("offline: the page opens again without a connection",
                  lambda: page.control(AT_DESTINATION) is not None or page.shows(RETRYING), 15), "the offline reload")
        documents = [response for response in page.responses("/rider")
                     if response["url"].split("?")[0].rstrip("/").endswith("/rider")]
        check(documents and documents[-1].get("fromServiceWorker"),
              "offline: the reloaded page came from the service worker")
        check(page.queue_length() == 2, f"offline: the queue survived the reload ({page.queue_length()})")
        page.wait_text(RETRYING, 5)
        check(page.control(AT_DESTINATION) is not None, "offline: after the reload the task is where the rider left it")
        early = status_events(server, order_id)
        if not check(not early, "offline: nothing reached the server yet"):
            print(f"     (received {[(event['status'], event['receivedAt']) for event in early]}; the page's "
                  f"online/offline events and fetches {page.driver.execute_script('return sessionStorage.getItem(`__net`)')}; sessions "
                  f"{page.devtools.sessions}; status requests "
                  f"{[(m['params']['request']['method'], round(m['params']['wallTime'], 2)) for m in page.network if m.get('method') == 'Network.requestWillBeSent' and '/status' in m['params']['request']['url']]})",
                  flush=True)
        time.sleep(2)

        if page.devtools.leaks:
            print(f"     (the browser's offline emulation let {len(page.devtools.leaks)} request(s) through to the "
                  f"network layer, failed there: {page.devtools.leaks[:3]})", flush=True)
        online_at = time.time()
        page.devtools.set_offline(False)
        arrived = wait("offline: back online, both taps reach the server",
                       lambda: len(status_events(server, order_id)) >= 2, 15)
        print(f"     (replayed {time.time() - online_at:.1f} s after the connection returned)", flush=True)
        page.allow()
        if arrived:
            log = status_events(server, order_id)
            check([event["status"] for event in log] == ["ARRIVED_AT_STORE", "PICKED_UP"],
                  f"offline: in the order tapped, each once ({[event['status'] for event in log]})")
            for event in log:
                occurred = parse_time(event["occurredAt"])
                check(within(occurred, taps[event["status"]]),
                      f"offline: {event['status']} keeps its tap time ({event['occurredAt']})")
                check(parse_time(event["receivedAt"]) - occurred > 3,
                      f"offline: {event['status']} was received later ({event['receivedAt']})")
        wait("offline: the retrying note goes away", lambda: not page.shows(RETRYING), 10)
        check(page.queue_length() == 0, "offline: the queue is empty")
    finally:
        page.devtools.set_offline(False)
        page.close()


def status_requests(page):
    page.drain()
    found = []
    for message in page.network:
        if message.get("method") == "Network.requestWillBeSent":
            request = message["params"]["request"]
            if "/status" in request["url"] and request["method"] == "PATCH":
                try:
                    found.append(json.loads(request.get("postData") or "{}"))
                except ValueError:
                    found.append({})
    return found


def flaky_server(server):
    rider_id, rider = rider_identity("Ines Roy")
    order_id, task_id, _ = task_at(server, rider_id, rider, [])
    page = RiderPage(server, "flaky server", position=STORE)
    try:
        sign_in(page, rider, None, (AT_STORE,))
        page.allow(*status_noise(503), r"ERR_CONNECTION_RESET", r"Failed to fetch")

        # The server records the tap but its answer never arrives: the page sends it again with the same eventId.
        page.devtools.intercept({"part": "/status", "stage": "Response", "action": "drop", "times": 1})
        page.tap(AT_STORE)
        wait("flaky server: after a lost answer the tap is sent again until it is answered",
             lambda: len(status_requests(page)) >= 2 and page.queue_length() == 0, 15, page=page)
        sent = status_requests(page)
        check(len({body.get("eventId") for body in sent}) == 1,
              f"flaky server: the resend has the same eventId ({len(sent)} sends)")
        log = status_events(server, order_id)
        check([event["status"] for event in log] == ["ARRIVED_AT_STORE"],
              f"flaky server: the server recorded it once ({[event['status'] for event in log]})")

        # A 503 in the server's place: the tap waits and goes once the server answers.
        page.devtools.intercept({"part": "/status", "stage": "Request", "action": 503, "times": 1})
        page.tap(PICKED_UP)
        wait("flaky server: after a 503 the tap is retried and recorded",
             lambda: len(status_events(server, order_id)) >= 2 and page.queue_length() == 0, 15, page=page)
        sent = status_requests(page)[len(sent):]
        check(len(sent) >= 2 and len({body.get("eventId") for body in sent}) == 1,
              f"flaky server: the retry after the 503 is the same tap ({len(sent)} sends)")
        log = status_events(server, order_id)
        check([event["status"] for event in log] == ["ARRIVED_AT_STORE", "PICKED_UP"],
              f"flaky server: nothing lost, nothing twice ({[event['status'] for event in log]})")
        page.devtools.release()
        page.allow()

        # Report a problem: the question, the answer, the server's record.
        need(page.wait_control(AT_DESTINATION, 10), "the task after pickup")
        page.tap(REPORT)
        need(page.wait_control("Customer unavailable", 5), "the choice of problems")
        page.screen("report-problem", must_show="Address not found")
        page.tap("Customer unavailable")
        confirm = page.wait_control("Send", 5, quiet=True)
        if confirm is not None:
            page.press(confirm)
        reported = wait("flaky server: the problem reaches the server",
                        lambda: [event for event in events(server, order_id)
                                 if event["type"] == "DeliveryIssueReported"], 10, page=page)
        if reported:
            check(reported[0]["details"].get("issueType") == "CUSTOMER_UNAVAILABLE",
                  f"flaky server: as 'Customer unavailable' ({reported[0]['details']})")
        # This customer has no phone registered for notifications: the rider is told the dispatcher knows, no more.
        wait("flaky server: the app says who was told (the dispatcher)",
             lambda: page.shows("The dispatcher has been told") and not page.shows("the customer have been told"),
             10, page=page)
    finally:
        page.devtools.release()
        page.close()
