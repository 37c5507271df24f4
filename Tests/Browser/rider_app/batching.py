"""Batching: a rider on the way to the store is offered a second order from it; the app shows where the order
falls in the trip, lists the trip's stops, arrives once for both orders at the store and takes the rider through
both deliveries in the server's sequence. The server runs with automatic dispatch and batching on."""

import time

from browser_support import HOME, STORE, check, now

from .api import DISPATCHER, events, new_order, rider_identity, status_events
from .page import RiderPage, enter_otp, go_online, need, sign_in, wait
from .words import ACCEPT, AT_DESTINATION, AT_STORE, COMPLETE, CONTINUE, DELIVERED, PICKED_UP, WAITING

TRIP_STOPS = "Stops on your trip"


def batched_trip(server):
    rider_id, rider = rider_identity("Ravi Kulkarni")
    start = {"lat": STORE["lat"] - 0.004, "lon": STORE["lon"] + 0.002}
    page = RiderPage(server, "batching", position=(start["lat"], start["lon"]))
    try:
        sign_in(page, rider, "Ravi Kulkarni")
        go_online(page)
        # Automatic dispatch ranks riders by their last fix: the rider's position, as the phone would send it.
        server.call("POST", "/api/v1/rider/locations", rider,
                    {"fixes": [dict(start, accuracyM=5, recordedAt=now())]}, expect=(202,))

        first_id, first_customer = new_order(server, ref="TRIP-1")
        need(page.wait_control(ACCEPT, 15), "the first order's offer")
        check(not page.shows("Adds to your trip"), "batching: the first offer is an ordinary one")
        page.tap(ACCEPT)
        need(page.wait_control(AT_STORE, 10), "the first task")

        second_id, second_customer = new_order(server, ref="TRIP-2", customer_name="Marc Blanc")
        need(page.wait_control(ACCEPT, 15), "the second order's offer, on the way to the store")
        check(page.shows("Adds to your trip: pick up at stop 2, deliver at stop 4 of 4"),
              f"batching: the offer says where the order falls in the trip ({page.text()[:300]!r})")
        page.screen("offer-trip", must_show="Adds to your trip")
        page.tap(ACCEPT)

        need(page.wait_text(TRIP_STOPS, 10), "the trip's stops")
        listed = page.driver.execute_script(
            "return [...document.querySelectorAll('#trip-stops li')].map((item) => item.textContent)")
        check(len(listed) == 4 and "TRIP-1" in listed[0] and "TRIP-2" in listed[1] and "Priya Shah" in listed[2]
              and "Marc Blanc" in listed[3],
              f"batching: the four stops in sequence, both pickups first ({listed})")
        page.screen("trip-stops", must_show=TRIP_STOPS)

        # One tap at the store arrives for both orders waiting there.
        page.move(STORE)
        page.tap(AT_STORE)
        wait("batching: one 'Arrived at Store' tap arrives for both orders",
             lambda: all(any(event["status"] == "ARRIVED_AT_STORE" for event in status_events(server, order))
                         for order in (first_id, second_id)), 10)
        page.tap(PICKED_UP)
        need(page.wait_text("Delivery TRIP-2", 10), "the second order's pickup next")
        need(page.wait_control(PICKED_UP, 10), "'Picked Up' for the second order")
        page.screen("trip-second-pickup", must_show="Delivery TRIP-2")
        page.tap(PICKED_UP)
        need(page.wait_text("Delivery TRIP-1", 10), "the first drop-off next")

        for order_id, customer, ref in ((first_id, first_customer, "TRIP-1"), (second_id, second_customer, "TRIP-2")):
            need(page.wait_text(f"Delivery {ref}", 10), f"the {ref} drop-off")
            if ref == "TRIP-1":
                # This server has no call-masking number: a masked phone cannot be dialled, so no Call button.
                check(page.control("Call") is None and page.shows("Phone:"),
                      "batching: the masked phone is shown without a Call button (no number connects)")
            page.move(HOME)
            page.tap(AT_DESTINATION)
            otp = server.call("GET", f"/api/v1/customer/orders/{order_id}", customer)["deliveryOtp"]
            enter_otp(page, otp)
            need(page.wait_control(DELIVERED, 10, enabled=True), f"'Delivered' for {ref}")
            page.tap(DELIVERED)
            need(page.wait_text(COMPLETE, 10), f"Delivery Complete for {ref}")
            if ref == "TRIP-1":
                wait("batching: after the first delivery the app goes on to the second order",
                     lambda: page.shows("Delivery TRIP-2") and page.control(AT_DESTINATION) is not None, 10)
                me = server.call("GET", "/api/v1/rider/me", rider)
                check(me["availability"] == "ON_TASK", f"batching: still on the trip ({me['availability']})")
        finish = page.control(CONTINUE)
        if finish is not None and not page.shows(WAITING):
            page.press(finish)
        need(page.wait_text(WAITING, 15), "waiting for offers after the trip")
        # The last tap may still be on its way (the app moves on before the answer): the server is asked once the
        # page's queue has sent everything, as a rider would see it on a slow network.
        wait("batching: the page's queue sends its last tap", lambda: page.queue_length() == 0, 15)

        for order_id in (first_id, second_id):
            statuses = [event["status"] for event in status_events(server, order_id)]
            check(statuses == ["ARRIVED_AT_STORE", "PICKED_UP", "ARRIVED_AT_DESTINATION", "DELIVERED"],
                  f"batching: order {order_id[:8]} has its own complete status sequence ({statuses})")
            check(server.call("GET", f"/api/v1/orders/{order_id}", DISPATCHER)["status"] == "DELIVERED",
                  "batching: the order is DELIVERED")
        made = [event for event in events(server, second_id) if event["type"] == "OffersMade"]
        check(made and "trip" in made[0]["details"].get("reason", ""),
              f"batching: the second offer's reason names the trip ({made[:1]})")
        me = server.call("GET", "/api/v1/rider/me", rider)
        check(me["availability"] == "ONLINE" and not me.get("activeTaskId"), "batching: the rider is free again")
        check(page.queue_length() == 0, "batching: nothing is left in the page's queue")
        time.sleep(0.2)
    finally:
        page.close()
