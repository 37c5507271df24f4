"""Scenario 2: the offer's failures, provoked for real (declined, expired, taken, cancelled, the rider offline)."""

from browser_support import STORE, check

from .api import DISPATCHER, new_order, offer, offer_for, rider_identity
from .page import RiderPage, go_online, need, sign_in, status_noise, wait
from .words import ACCEPT, CANCELLED, DECLINE, EXPIRED, NOT_ONLINE, TAKEN, WAITING


def tap_accept_if_shown(page):
    """Taps "Accept Task" when the page still shows it: the stream may already have told the page the outcome."""
    button = page.control(ACCEPT)
    if button is not None:
        try:
            page.press(button)
        except Exception:
            pass


def offer_failures(server, ttl):
    rider_id, rider = rider_identity("Ben Okafor")
    other_id, other = rider_identity("Carla Diaz")
    server.call("PUT", "/api/v1/rider/availability", other, {"status": "ONLINE"})
    page = RiderPage(server, "offers", position=STORE)
    try:
        sign_in(page, rider, "Ben Okafor")
        go_online(page)

        def dismiss(words):
            """Back to waiting after a refusal: by itself, or with the control the message comes with."""
            for word in ("OK", "Close", "Dismiss", "Back"):
                control = page.control(word)
                if control is not None:
                    page.press(control)
                    break
            wait(f"offers: after '{words}' the rider waits for offers again",
                 lambda: page.shows(WAITING) and page.control(ACCEPT) is None, 10)

        # Declining: the offer goes, the server is told, and the rider waits again.
        order_id, _ = new_order(server, ref="DECLINE-1")
        offer(server, order_id, rider_id)
        page.tap(DECLINE, 5)
        wait("offers: Decline removes the offer", lambda: page.control(ACCEPT) is None and page.shows(WAITING), 3,
             page=page)
        answers = wait("offers: the decline reaches the server",
                       lambda: [response["status"] for response in page.responses("/decline")], 3)
        check(answers == [200], f"offers: the server took the decline ({answers})")

        # Expired: the rider taps in time, but the network holds the request until the offer's TTL has passed.
        order_id, _ = new_order(server, ref="EXPIRE-1")
        page.allow(*status_noise(410))
        page.devtools.hold("/accept", ttl + 1.5)
        offer(server, order_id, rider_id)
        page.tap(ACCEPT, 5)
        shown = page.wait_text(EXPIRED, ttl + 10)
        answers = wait("offers: the held accept reached the server after the offer's time",
                       lambda: [response["status"] for response in page.responses("/accept")], ttl + 6)
        page.devtools.release()
        check(answers and answers[0] == 410,
              f"offers: the server answered the late accept 410 ({answers}), and the page says '{EXPIRED}'")
        check(page.shows(EXPIRED), f"offers: after the 410 the page still says '{EXPIRED}'")
        if shown:
            page.screen("offer-expired", must_show=EXPIRED)
        check(server.call("GET", f"/api/v1/orders/{order_id}", DISPATCHER)["status"] == "READY_FOR_PICKUP",
              "offers: the expired offer assigned nothing")
        dismiss(EXPIRED)

        # Taken: another rider accepts the same order first.
        order_id, _ = new_order(server, ref="TAKEN-1")
        page.allow(*status_noise(409))
        offers = offer(server, order_id, rider_id, other_id)
        need(page.wait_control(ACCEPT, 5), "the second offer")
        server.call("POST", f"/api/v1/rider/offers/{offer_for(offers, other_id)}/accept", other)
        tap_accept_if_shown(page)
        if page.wait_text(TAKEN, 8):
            page.screen("offer-taken", must_show=TAKEN)
        statuses = [response["status"] for response in page.responses("/accept")][1:]
        print(f"     (the page's accept was answered {statuses or 'never: the page knew first'})", flush=True)
        check(server.call("GET", f"/api/v1/orders/{order_id}", DISPATCHER)["assignedRiderId"] == other_id,
              "offers: the order stays with the rider who won it")
        dismiss(TAKEN)

        # Cancelled: the dispatcher cancels before the rider taps.
        order_id, _ = new_order(server, ref="CANCEL-1")
        offer(server, order_id, rider_id)
        need(page.wait_control(ACCEPT, 5), "the third offer")
        server.call("POST", f"/api/v1/orders/{order_id}/cancel", DISPATCHER, {"reason": "customer changed mind"})
        tap_accept_if_shown(page)
        if page.wait_text(CANCELLED, 8):
            page.screen("offer-cancelled", must_show=CANCELLED)
        statuses = [response["status"] for response in page.responses("/accept")][2:]
        print(f"     (the page's accept was answered {statuses or 'never: the page knew first'})", flush=True)
        dismiss(CANCELLED)

        # RDR-BR-001: the rider went offline elsewhere (the server says so) and taps Accept here.
        order_id, _ = new_order(server, ref="OFFLINE-1")
        page.allow(*status_noise(403))
        offer(server, order_id, rider_id)
        need(page.wait_control(ACCEPT, 5), "the fourth offer")
        server.call("PUT", "/api/v1/rider/availability", rider, {"status": "OFFLINE"})
        button = page.control(ACCEPT)
        if button is not None:
            page.press(button)
        page.wait_text(NOT_ONLINE, 8)
        page.allow()

    finally:
        page.close()
