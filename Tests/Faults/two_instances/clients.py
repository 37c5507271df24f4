"""The REST load through nginx: every answer counted (`stats`), retries as a client should make them, riders posting
fixes and whole deliveries one after the other until `stop_load` is set.

`stats` and `stop_load` are shared with the entry script and the report through `from .clients import ...`; they are
changed in place (never rebound), so every module sees the same objects.
"""

import threading
import time
import uuid
from collections import Counter

from .support import HOME, RETRYABLE, STORE, logistics_api, mint, now, parse_time


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.statuses = Counter()         # every answer, by status ("conn" for a refused or cut connection)
        self.errors = Counter()           # (method, status) of the retryable answers
        self.unexpected = []
        self.stuck = []                   # POSTs left behind a claim of the killed instance
        self.taken_over = []              # seconds from the first 409 IN_PROGRESS to the answer
        self.requests = 0
        self.replayed = 0                 # answers with Idempotent-Replayed: true
        self.first_error = None
        self.last_error = None

    def record(self, method, path, status, replayed=False):
        with self.lock:
            self.requests += 1
            self.statuses[status] += 1
            if replayed:
                self.replayed += 1
            if status == "conn" or status in RETRYABLE or status == 409:
                self.errors[(method, status)] += 1
            if status == "conn" or status in RETRYABLE:
                moment = time.time()
                self.first_error = self.first_error or moment
                self.last_error = moment


stats = Stats()
stop_load = threading.Event()


class StuckClaim(RuntimeError):
    """A POST whose Idempotency-Key the killed instance had claimed and that still answers 409
    IDEMPOTENCY_REQUEST_IN_PROGRESS after 5 s. On PostgreSQL the claim of an instance that is gone is taken over at
    once (its presence lock went with its connections); without that it would wait for the 2-minute takeover. The
    flow counts it (a failure) and starts another order."""


class API:
    def __init__(self, base):
        self.base = base

    def once(self, method, path, token, body=None, key=None):
        try:
            status, text, headers = logistics_api.request(
                self.base, method, path, token, body, {"Idempotency-Key": key} if key else None, timeout=15)
        except logistics_api.Unreachable:
            stats.record(method, path, "conn")
            return "conn", None, {}
        stats.record(method, path, status, headers.get("Idempotent-Replayed") == "true")
        return status, logistics_api.document(text) if text else None, headers

    def call(self, method, path, token, body=None, key=None, expect=(200, 201, 202, 204), patience=30):
        """Retries the documented retryable answers; a POST keeps its Idempotency-Key across the retries."""
        if method == "POST" and key is None:
            key = str(uuid.uuid4())
        deadline = time.time() + patience
        in_progress_since = None
        while True:
            status, document, headers = self.once(method, path, token, body, key)
            if status in expect:
                if in_progress_since:
                    with stats.lock:
                        stats.taken_over.append(round(time.time() - in_progress_since, 2))
                return document
            code = document.get("code") if isinstance(document, dict) else None
            if code == "IDEMPOTENCY_REQUEST_IN_PROGRESS":
                in_progress_since = in_progress_since or time.time()
                if time.time() - in_progress_since > 5:
                    with stats.lock:
                        stats.stuck.append(f"{method} {path}")
                    raise StuckClaim(f"{method} {path}")
            retryable = status == "conn" or status in RETRYABLE or code == "IDEMPOTENCY_REQUEST_IN_PROGRESS"
            if not retryable or time.time() > deadline:
                with stats.lock:
                    stats.unexpected.append(f"{method} {path} -> {status} {str(document)[:200]}")
                raise RuntimeError(f"{method} {path} answered {status}: {str(document)[:300]}")
            time.sleep(0.2)


def order_body(customer_id, ref):
    return {"podType": "OTP", "externalRef": ref,
            "vendor": {"name": "Café de Paris", "address": "Place du Casino", "location": STORE},
            "customer": {"id": customer_id, "name": "Priya Shah", "phone": "+377 93 15 00 01",
                         "address": "Avenue de Fontvieille", "location": HOME}}


def status_change(api, rider, task_id, status, where):
    api.call("PATCH", f"/api/v1/rider/tasks/{task_id}/status", rider,
             {"status": status, "eventId": str(uuid.uuid4()), "occurredAt": now(),
              "location": dict(where, accuracyM=5)})


def picked_up(api, dispatcher, ref):
    """An order on its way: created, ready, offered, accepted, picked up. Returns its ids and tokens."""
    rider_id, customer_id = str(uuid.uuid4()), str(uuid.uuid4())
    rider, customer = mint("rider", rider_id), mint("customer", customer_id)
    order_id = api.call("POST", "/api/v1/orders", dispatcher, order_body(customer_id, ref))["orderId"]
    api.call("POST", f"/api/v1/orders/{order_id}/ready", dispatcher)
    api.call("PUT", "/api/v1/rider/availability", rider, {"status": "ONLINE"})
    offers = api.call("POST", f"/api/v1/orders/{order_id}/offers", dispatcher, {"riderIds": [rider_id]})
    task = api.call("POST", f"/api/v1/rider/offers/{offers['offers'][0]['offerId']}/accept", rider)
    status_change(api, rider, task["taskId"], "ARRIVED_AT_STORE", STORE)
    status_change(api, rider, task["taskId"], "PICKED_UP", STORE)
    return {"orderId": order_id, "taskId": task["taskId"], "rider": rider, "riderId": rider_id, "customer": customer,
            "ref": ref}


def deliver(api, order):
    view = api.call("GET", f"/api/v1/customer/orders/{order['orderId']}", order["customer"])
    status_change(api, order["rider"], order["taskId"], "ARRIVED_AT_DESTINATION", HOME)
    api.call("POST", f"/api/v1/rider/tasks/{order['taskId']}/pod", order["rider"],
             {"type": "OTP", "value": view["deliveryOtp"], "capturedAt": now(), "location": dict(HOME, accuracyM=5)})
    status_change(api, order["rider"], order["taskId"], "DELIVERED", HOME)


class Rider(threading.Thread):
    """Posts one fix every 0.4 s, each about 45 m farther along a line than the last (so every one is shown to the
    customer: none is within the channel's 25 m of one shown before)."""

    def __init__(self, api, order, index):
        super().__init__(daemon=True)
        self.api, self.order, self.index = api, order, index
        self.accepted = []  # (recordedAt as seconds, acknowledged at, instance that answered)
        self.deliver_at = None
        self.delivered = False
        self.error = None

    def run(self):
        step = 0
        try:
            while not stop_load.is_set():
                if self.deliver_at and time.time() >= self.deliver_at and not self.delivered:
                    deliver(self.api, self.order)
                    self.delivered = True
                    return
                step += 1
                lat = 43.7300 + 0.0004 * step
                lon = 7.4200 + 0.0001 * self.index
                recorded = now()
                body = {"fixes": [{"lat": lat, "lon": lon, "accuracyM": 5, "speedMps": 8, "recordedAt": recorded}]}
                while not stop_load.is_set():
                    status, document, headers = self.api.once("POST", "/api/v1/rider/locations", self.order["rider"],
                                                              body)
                    if status == 202:
                        self.accepted.append((parse_time(recorded), time.time(), headers.get("X-Upstream", "")))
                        break
                    if status != "conn" and status not in RETRYABLE:
                        raise RuntimeError(f"a fix answered {status}: {document}")
                    time.sleep(0.1)  # the same batch again: exact duplicates are dropped
                time.sleep(0.4)
        except Exception as error:  # noqa: BLE001
            self.error = error


class Flow(threading.Thread):
    """Whole deliveries, one after the other: a dispatcher creating and offering, a rider taking it to the door."""

    def __init__(self, api, dispatcher, index):
        super().__init__(daemon=True)
        self.api, self.dispatcher, self.index = api, dispatcher, index
        self.refs = []
        self.completed = 0
        self.error = None

    def run(self):
        try:
            while not stop_load.is_set():
                ref = f"fault-flow-{self.index}-{len(self.refs)}"
                self.refs.append(ref)
                try:
                    order = picked_up(self.api, self.dispatcher, ref)
                    deliver(self.api, order)
                    self.completed += 1
                except StuckClaim:
                    continue
        except Exception as error:  # noqa: BLE001
            self.error = error
