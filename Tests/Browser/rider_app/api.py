"""The server side: riders, orders, offers, the event log and photos through the API (HTTP, no browser)."""

import json
import random
import urllib.error
import urllib.request
import uuid

from browser_support import HOME, STORE, mint, now


def rider_identity(name):
    rider_id = str(uuid.uuid4())
    return rider_id, mint("rider", rider_id, name=name)


DISPATCHER = mint("dispatcher", str(uuid.uuid4()), name="Test Dispatcher")
ADMIN = mint("admin", str(uuid.uuid4()), name="Test Admin")


def new_order(server, pod="OTP", ref=None, customer_name="Priya Shah", home=HOME):
    customer_id = str(uuid.uuid4())
    body = {"podType": pod, "externalRef": ref or f"R-{random.randint(1000, 9999)}",
            "vendor": {"name": "Café de Paris", "address": "Place du Casino", "location": STORE},
            "customer": {"id": customer_id, "name": customer_name, "phone": "+377 93 15 00 01",
                         "address": "Avenue de Fontvieille 12", "location": home},
            "notes": "Ring twice"}
    order_id = server.call("POST", "/api/v1/orders", DISPATCHER, body)["orderId"]
    server.call("POST", f"/api/v1/orders/{order_id}/ready", DISPATCHER)
    return order_id, mint("customer", customer_id)


def offer(server, order_id, *rider_ids):
    return server.call("POST", f"/api/v1/orders/{order_id}/offers", DISPATCHER,
                       {"riderIds": list(rider_ids)})["offers"]


def offer_for(offers, rider_id):
    return next(item["offerId"] for item in offers if item["riderId"] == rider_id)


def set_status(server, rider, task_id, status, at, **extra):
    return server.call("PATCH", f"/api/v1/rider/tasks/{task_id}/status", rider, dict({
        "status": status, "eventId": str(uuid.uuid4()), "occurredAt": now(), "location": dict(at, accuracyM=5)},
        **extra))


def task_at(server, rider_id, rider, statuses, pod="OTP", at=STORE):
    """An order this rider accepted through the API, moved on through `statuses`."""
    server.call("PUT", "/api/v1/rider/availability", rider, {"status": "ONLINE"})
    order_id, customer = new_order(server, pod=pod)
    offers = offer(server, order_id, rider_id)
    task = server.call("POST", f"/api/v1/rider/offers/{offer_for(offers, rider_id)}/accept", rider)
    for status in statuses:
        set_status(server, rider, task["taskId"], status, HOME if status == "ARRIVED_AT_DESTINATION" else at)
    return order_id, task["taskId"], customer


def events(server, order_id):
    return server.call("GET", f"/api/v1/orders/{order_id}/events", DISPATCHER)["events"]


def status_events(server, order_id):
    return [event for event in events(server, order_id)
            if event["type"] == "DeliveryStatusUpdated" and event.get("status")]


def fetch_bytes(server, path, token):
    request = urllib.request.Request(server.base + path, headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read()


def post_photo(server, rider, task_id, photo, name="photo.jpg"):
    """The server's own answer to a photo, for comparing with what the page shows."""
    boundary = "----rider-test-" + uuid.uuid4().hex
    parts = []
    for field, value in [("capturedAt", now()), ("lat", str(HOME["lat"])), ("lon", str(HOME["lon"])),
                         ("accuracyM", "5")]:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"\r\n\r\n{value}\r\n'.encode())
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="{name}"\r\n'
                 f'Content-Type: image/jpeg\r\n\r\n'.encode() + photo + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    request = urllib.request.Request(server.base + f"/api/v1/rider/tasks/{task_id}/pod", data=b"".join(parts),
                                     method="POST", headers={"Authorization": "Bearer " + rider,
                                                             "Content-Type": f"multipart/form-data; boundary={boundary}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")
