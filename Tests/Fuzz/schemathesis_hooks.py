"""Schemathesis hooks for Tests/Fuzz/schemathesis_run.py.

- Webhooks registered by the admin run are called for every order event the other runs cause: a generated `http://`
  or `https://` URL is pointed at a closed port on localhost, so the run never reaches outside the machine.
- The rules JSON Schema cannot state are relative to the clock and to the task: a fix's `recordedAt` may be at most
  2 minutes ahead of the server, and a tap's `occurredAt` also not before the task was accepted (API.md: 400; the
  document says both in words). A schema-valid case gets the present for `occurredAt`, and for a later
  `recordedAt` or `capturedAt`, so it tests everything else; negative cases keep what was generated.
"""

from datetime import datetime, timedelta, timezone
from urllib.parse import urlsplit

import schemathesis

LOCAL_SINK = "http://127.0.0.1:9"
CLOCK_BOUND = {"recordedAt", "occurredAt", "capturedAt"}


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
    if not negative:
        clamp_times(body, datetime.now(timezone.utc) + timedelta(seconds=60))
    return case
