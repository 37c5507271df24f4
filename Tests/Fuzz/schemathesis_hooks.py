"""Schemathesis hooks for Tests/Fuzz/schemathesis_run.py.

- Webhooks registered by the admin run are called for every order event the other runs cause: a generated `http://`
  or `https://` URL is pointed at a closed port on localhost, so the run never reaches outside the machine.
- The rules JSON Schema cannot state are relative to the clock and to the task: a fix's `recordedAt` may be at most
  2 minutes ahead of the server, and a tap's `occurredAt` also not before the task was accepted (API.md: 400; the
  document says both in words). A schema-valid case gets the present for `occurredAt`, and for a later
  `recordedAt` or `capturedAt`, so it tests everything else; negative cases keep what was generated.
- An order's `vendorId` must name a registered store (400 otherwise, as API.md says: which ids are registered is the
  world's state, not the document's): an order with a well-formed `vendorId` names the store the seeding
  registered, so it tests the rest of its shape (in every phase: the examples phase's cases are not marked
  positive); a malformed id is kept, to be refused.
- A route's `departAt` must not be in the past nor more than 7 days ahead (400): a schema-valid case departs in an
  hour; negative cases keep what was generated.
- A plan's rules across fields (unique ids, amounts as long as the capacity, locations on Monaco's roads, a search
  budget) are not JSON Schema's to state: a schema-valid `POST /api/v1/plans` is repaired to keep them, small and
  quick, so the run tests the rest of its shape; negative cases keep what was generated.
"""

import os
import uuid
from datetime import datetime, timedelta, timezone
from urllib.parse import urlsplit

import schemathesis

LOCAL_SINK = "http://127.0.0.1:9"
CASINO = [7.4276, 43.7396]
CLOCK_BOUND = {"recordedAt", "occurredAt", "capturedAt"}


def well_formed_id(value):
    """A UUID as the API reads one (a negative case's malformed id is left to be refused)."""
    try:
        return isinstance(value, str) and uuid.UUID(value) is not None
    except ValueError:
        return False


def parsed_time(text):
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else None


def clamp_times(value, latest):
    if isinstance(value, dict):
        for key, item in value.items():
            if key in CLOCK_BOUND and isinstance(item, str) and (moment := parsed_time(item)) \
                    and (moment > latest or key == "occurredAt"):
                value[key] = latest.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
            else:
                clamp_times(item, latest)
    elif isinstance(value, list):
        for item in value:
            clamp_times(item, latest)


def repaired_plan(body):
    """Keeps what was generated where the plan's cross-field rules allow it; at most 5 vehicles and 20 stops."""
    body.pop("matrices", None)
    vehicles = [v for v in body.get("vehicles", []) if isinstance(v, dict)][:5] or [{}]
    jobs = [j for j in body.get("jobs", []) or [] if isinstance(j, dict)][:12]
    shipments = [s for s in body.get("shipments", []) or [] if isinstance(s, dict)][:4]
    if not jobs and not shipments:
        jobs = [{}]

    def place(item, number):
        item["id"] = number
        item["location"] = CASINO
        item.pop("location_index", None)
        windows = [sorted(w) for w in item.get("time_windows") or [] if isinstance(w, list) and len(w) == 2]
        item["time_windows"] = windows or [[0, 86400]]

    for number, vehicle in enumerate(vehicles):
        vehicle["id"] = number
        for end in ("start", "end"):
            vehicle.pop(end + "_index", None)
            if end in vehicle:
                vehicle[end] = CASINO
        vehicle["capacity"] = [10]
        if isinstance(vehicle.get("time_window"), list) and len(vehicle["time_window"]) == 2:
            vehicle["time_window"] = sorted(vehicle["time_window"])
    for number, job in enumerate(jobs):
        place(job, number)
        for amount in ("delivery", "pickup"):
            if amount in job:
                job[amount] = [1]
    for number, shipment in enumerate(shipments):
        for end in ("pickup", "delivery"):
            if not isinstance(shipment.get(end), dict):
                shipment[end] = {}
            place(shipment[end], number)
        shipment["amount"] = [1]
    body.update(vehicles=vehicles, jobs=jobs, shipments=shipments, options={"seed": 1, "time_limit": 0.05})


@schemathesis.hook
def map_case(context, case):
    body = case.body
    if case.operation.path == "/api/v1/webhooks" and isinstance(body, dict) and isinstance(body.get("url"), str):
        url = body["url"]
        if url.lower().startswith(("http://", "https://")):
            try:
                path = urlsplit(url).path
            except ValueError:
                path = ""
            body["url"] = LOCAL_SINK + path
    negative = case.meta is not None and not case.meta.generation.mode.is_positive
    if case.operation.path == "/api/v1/orders" and isinstance(body, dict) and well_formed_id(body.get("vendorId")) \
            and os.environ.get("FUZZ_STORE_ID"):
        body["vendorId"] = os.environ["FUZZ_STORE_ID"]
    if not negative:
        clamp_times(body, datetime.now(timezone.utc) + timedelta(seconds=60))
        if case.operation.path == "/api/v1/plans" and isinstance(body, dict):
            repaired_plan(body)
        if case.operation.path == "/api/v1/routes" and isinstance(case.query, dict) and "departAt" in case.query:
            later = datetime.now(timezone.utc) + timedelta(hours=1)
            case.query["departAt"] = later.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    return case
