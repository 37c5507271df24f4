"""What the fault test's parts share: paths, the database, the secret, the load's settings (from the environment),
the list of failures and the start time, checks, times, tokens and psql.

`failures` and `started` are shared by every module through `from .support import ...`: the list is only appended
to and neither name is ever rebound, so every module sees the same objects.
"""

import os
import subprocess
import sys
import time
from datetime import datetime, timezone


# The repository: this file is Tests/Faults/two_instances/support.py.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "PythonSupport"))
import logistics_api  # noqa: E402
BINARY = os.environ.get("LOGISTICS_BINARY") or os.path.join(ROOT, ".build", "debug", "logistics")
DATABASE_URL = os.environ.get("LOGISTICS_TEST_DATABASE_URL",
                              "postgres://logistics:logistics@127.0.0.1:5432/logistics_test")
SECRET = "fault-test-secret-0123456789abcdef-0123456"
STORE = {"lat": 43.7396, "lon": 7.4276}
HOME = {"lat": 43.7289, "lon": 7.4170}
TRACKED_ORDERS = int(os.environ.get("FAULT_TRACKED_ORDERS", "6"))
FLOW_WORKERS = int(os.environ.get("FAULT_FLOW_WORKERS", "3"))
KILL_AT = float(os.environ.get("FAULT_KILL_AT", "8"))        # seconds into the load
DELIVER_AT = float(os.environ.get("FAULT_DELIVER_AT", "20"))  # half the tracked orders are delivered then
LOAD_SECONDS = float(os.environ.get("FAULT_LOAD_SECONDS", "30"))
RETRYABLE = {502, 503, 504}
failures = []
started = time.time()


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)
    return bool(condition)


def now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def parse_time(text):
    return round(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp(), 3)


def mint(role, subject):
    return logistics_api.mint(role, subject, SECRET)


def psql(sql):
    return subprocess.check_output(["psql", DATABASE_URL, "-v", "ON_ERROR_STOP=1", "-qtA", "-c", sql],
                                   text=True, timeout=30).strip()
