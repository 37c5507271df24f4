#!/usr/bin/env python3
"""kill -9 under delivery load: riders deliver against a real `logistics serve`, which is killed with SIGKILL at a
random moment and started again on the same data; every write a client saw acknowledged must be there afterwards,
no order half-changed, no gap in any order's event sequence. On SQLite, and on PostgreSQL when
LOGISTICS_TEST_DATABASE_URL is set.

Run after `swift build`: python3 Tests/Faults/crash_test.py [--rounds 3] [--riders 6] [--max-seconds 2]
Localhost only; bounded by its rounds, and every request by a 15 s timeout.
"""

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from two_instances.support import BINARY, HOME, SECRET, STORE, logistics_api, mint, now, psql  # noqa: E402

# An order's place on the happy path, so "at least as far as acknowledged" can be checked.
PROGRESS = {"PENDING_VENDOR_ACCEPTANCE": 0, "PREPARING": 0, "READY_FOR_PICKUP": 1, "RIDER_ASSIGNED": 2,
            "IN_TRANSIT": 3, "ARRIVED_AT_DESTINATION": 4, "RETURNING_TO_STORE": 5, "DELIVERED": 6, "CANCELLED": 6,
            "FAILED": 6, "RETURNED": 6}
# A rider's tap names the task's status; the order's follows from it.
ORDER_STATUS_OF_TASK = {"ACCEPTED": "RIDER_ASSIGNED", "ARRIVED_AT_STORE": "RIDER_ASSIGNED",
                        "PICKED_UP": "IN_TRANSIT", "ARRIVED_AT_DESTINATION": "ARRIVED_AT_DESTINATION",
                        "DELIVERED": "DELIVERED"}


class Gone(Exception):
    """The server stopped answering: the load stops, and what was not acknowledged does not count."""


class Server:
    def __init__(self, directory, environment):
        self.log = open(os.path.join(directory, "server.log"), "a")
        self.process = subprocess.Popen([BINARY, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir",
                                         directory], stdout=subprocess.PIPE, stderr=self.log, env=environment,
                                        text=True)
        self.base = None
        deadline = time.time() + 60
        while time.time() < deadline and self.base is None:
            line = self.process.stdout.readline()
            if not line and self.process.poll() is not None:
                break
            if "listening on http://" in line:
                self.base = "http://" + line.split("listening on http://", 1)[1].split()[0]
        if self.base is None:
            self.kill()
            raise RuntimeError(f"the server did not start; see {self.log.name}")
        threading.Thread(target=lambda: [None for _ in self.process.stdout], daemon=True).start()

    def kill(self, how=signal.SIGKILL):
        if self.process.poll() is None:
            self.process.send_signal(how)
        self.process.wait(timeout=30)
        self.log.close()


def call(base, method, path, token, body=None, expect=(200, 201, 202)):
    try:
        return logistics_api.call(base, method, path, token, body, expect, timeout=15)
    except logistics_api.Unreachable:
        raise Gone()


class Journal:
    """Every write the server answered with success: per order, the furthest status, the status events' ids and
    how many writes."""

    def __init__(self):
        self.lock = threading.Lock()
        self.orders = {}

    def reached(self, order_id, status, event_id=None):
        with self.lock:
            order = self.orders.setdefault(order_id, {"status": status, "events": [], "writes": 0})
            order["status"] = status
            order["writes"] += 1
            if event_id:
                order["events"].append(event_id)


def rider_loop(base, journal, stop):
    dispatcher = mint("dispatcher", str(uuid.uuid4()))
    rider_id = str(uuid.uuid4())
    rider = mint("rider", rider_id)
    try:
        call(base, "PUT", "/api/v1/rider/availability", rider, {"status": "ONLINE"})
        while not stop.is_set():
            customer_id = str(uuid.uuid4())
            customer = mint("customer", customer_id)
            order = call(base, "POST", "/api/v1/orders", dispatcher,
                         {"podType": "OTP", "externalRef": "CRASH",
                          "vendor": {"name": "Café de Paris", "address": "Place du Casino", "location": STORE},
                          "customer": {"id": customer_id, "name": "Priya Shah", "phone": "+377 93 15 00 01",
                                       "address": "Avenue de Fontvieille", "location": HOME}})
            order_id = order["orderId"]
            journal.reached(order_id, "PENDING_VENDOR_ACCEPTANCE")
            call(base, "POST", f"/api/v1/orders/{order_id}/ready", dispatcher)
            journal.reached(order_id, "READY_FOR_PICKUP")
            offers = call(base, "POST", f"/api/v1/orders/{order_id}/offers", dispatcher, {"riderIds": [rider_id]})
            task = call(base, "POST", f"/api/v1/rider/offers/{offers['offers'][0]['offerId']}/accept", rider)
            journal.reached(order_id, "RIDER_ASSIGNED")
            for status, where in [("ARRIVED_AT_STORE", STORE), ("PICKED_UP", STORE),
                                  ("ARRIVED_AT_DESTINATION", HOME)]:
                tap(base, rider, task["taskId"], order_id, status, where, journal)
            view = call(base, "GET", f"/api/v1/customer/orders/{order_id}", customer)
            call(base, "POST", f"/api/v1/rider/tasks/{task['taskId']}/pod", rider,
                 {"type": "OTP", "value": view["deliveryOtp"], "capturedAt": now(),
                  "location": dict(HOME, accuracyM=5)})
            tap(base, rider, task["taskId"], order_id, "DELIVERED", HOME, journal)
    except Gone:
        return


def tap(base, rider, task_id, order_id, status, where, journal):
    event_id = str(uuid.uuid4())
    call(base, "PATCH", f"/api/v1/rider/tasks/{task_id}/status", rider,
         {"status": status, "eventId": event_id, "occurredAt": now(), "location": dict(where, accuracyM=5)})
    journal.reached(order_id, ORDER_STATUS_OF_TASK[status], event_id)


def look_for_everything(base, journal):
    """What a dispatcher sees after the restart, against what was acknowledged before the kill."""
    dispatcher = mint("dispatcher", str(uuid.uuid4()))
    found = {"orders": 0, "acknowledged": 0, "lost": 0, "gaps": 0, "half_done": 0}
    for order_id, acknowledged in journal.orders.items():
        found["orders"] += 1
        found["acknowledged"] += acknowledged["writes"]
        try:
            order = call(base, "GET", f"/api/v1/orders/{order_id}", dispatcher)
        except RuntimeError:
            found["lost"] += acknowledged["writes"]
            continue
        # A status behind the acknowledged one counts once; the missing events below count the rest.
        if PROGRESS[order["status"]] < PROGRESS[acknowledged["status"]]:
            found["lost"] += 1
        events = call(base, "GET", f"/api/v1/orders/{order_id}/events", dispatcher)["events"]
        seqs = [event["seq"] for event in events]
        if not seqs or seqs != list(range(1, len(seqs) + 1)):
            found["gaps"] += 1
        ids = {event.get("eventId") for event in events}
        found["lost"] += sum(1 for event_id in acknowledged["events"] if event_id not in ids)
        statuses = [event["status"] for event in events if event.get("status")]
        newest = statuses[-1] if statuses else None
        newest = ORDER_STATUS_OF_TASK.get(newest, newest)
        if newest != order["status"]:
            found["half_done"] += 1
            print(f"    half-done: order {order_id} is {order['status']}, its newest event says {newest}")
    return found


def crash_rounds(store, arguments):
    directory = tempfile.mkdtemp(prefix="logistics-crash-")
    environment = dict(os.environ, LOGISTICS_JWT_SECRET=SECRET, LOGISTICS_RATE_LIMIT_ADDRESS="off",
                       LOGISTICS_RATE_LIMIT_CALLER="off", LOGISTICS_RATE_LIMIT_FIXES="off",
                       LOGISTICS_CONNECTIONS_PER_ADDRESS="off", LOG_LEVEL="error")
    environment.pop("DATABASE_URL", None)
    environment.pop("LOGISTICS_MAP", None)
    schema = None
    if store == "PostgreSQL":
        schema = "crash_" + uuid.uuid4().hex[:16]
        psql(f"CREATE SCHEMA {schema}")
        environment.update(DATABASE_URL=os.environ["LOGISTICS_TEST_DATABASE_URL"], LOGISTICS_DATABASE_SCHEMA=schema)
    total = {"orders": 0, "acknowledged": 0, "lost": 0, "gaps": 0, "half_done": 0}
    print(f"Killing the server ({store}) {arguments.rounds} times under {arguments.riders} delivering riders ...",
          flush=True)
    try:
        for round_number in range(1, arguments.rounds + 1):
            server = Server(directory, environment)
            journal, stop = Journal(), threading.Event()
            riders = [threading.Thread(target=rider_loop, args=(server.base, journal, stop), daemon=True)
                      for _ in range(arguments.riders)]
            for rider in riders:
                rider.start()
            # The random moment counts from the first acknowledged write, so the kill always meets the load.
            deadline = time.time() + 30
            while not journal.orders and time.time() < deadline:
                time.sleep(0.02)
            time.sleep(random.uniform(0.3, arguments.max_seconds))
            server.kill(signal.SIGKILL)
            stop.set()
            for rider in riders:
                rider.join(timeout=30)
            restarted = Server(directory, environment)
            try:
                found = look_for_everything(restarted.base, journal)
            finally:
                restarted.kill(signal.SIGTERM)
            for key in total:
                total[key] += found[key]
            print(f"  round {round_number}/{arguments.rounds}: {found['acknowledged']} writes acknowledged on "
                  f"{found['orders']} orders, {found['lost']} lost, {found['gaps']} gaps, "
                  f"{found['half_done']} half-done", flush=True)
    finally:
        if schema:
            psql(f"SET client_min_messages = warning; DROP SCHEMA {schema} CASCADE")
        shutil.rmtree(directory, ignore_errors=True)
    print(f"{total['lost']} lost of {total['acknowledged']} acknowledged writes ({total['orders']} orders) over "
          f"{arguments.rounds} kill -9 rounds on {store}; {total['gaps']} sequence gaps, "
          f"{total['half_done']} half-done orders", flush=True)
    clean = total["lost"] == 0 and total["gaps"] == 0 and total["half_done"] == 0
    # Each round kills after its first acknowledged write; fewer than one a round means the load never ran.
    ran = total["acknowledged"] >= arguments.rounds
    if not ran:
        print(f"FAIL the load was not running when the server was killed ({total['acknowledged']} writes)")
    return clean and ran


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--riders", type=int, default=6)
    parser.add_argument("--max-seconds", type=float, default=2.0,
                        help="the kill comes up to this long after a round's first acknowledged write")
    arguments = parser.parse_args()
    if not (1 <= arguments.rounds <= 500 and 1 <= arguments.riders <= 200 and 0.5 <= arguments.max_seconds <= 60):
        parser.error("--rounds 1...500, --riders 1...200, --max-seconds 0.5...60")
    if not os.access(BINARY, os.X_OK):
        raise SystemExit(f"no server binary at {BINARY}: run `swift build` first, or name one with LOGISTICS_BINARY")
    stores = ["SQLite"]
    if os.environ.get("LOGISTICS_TEST_DATABASE_URL"):
        stores.append("PostgreSQL")
    else:
        print("note: LOGISTICS_TEST_DATABASE_URL is not set; the PostgreSQL rounds are skipped")
    results = [crash_rounds(store, arguments) for store in stores]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
