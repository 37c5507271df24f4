"""Schemathesis over the served OpenAPI document, once per role (issue #20, point 16).

Starts the real binary (`.build/debug/logistics serve`, SQLite in a temporary directory, the Monaco map, rate limits
off so 429s do not drown the run), mints a token per role with `logistics token`, and runs schemathesis against
`GET /openapi.json` with each. Fails (exit 1) on any 5xx, any response outside the document (status, content type,
headers, body), any schema-valid request refused, and any undocumented method in an `Allow` header.

Bounded: FUZZ_EXAMPLES cases per operation and phase (default 20), a fixed seed (FUZZ_SEED), and a time limit per
role (FUZZ_ROLE_SECONDS, default 120) after which the role fails instead of running on. Reports land in
.ci/artifacts/schemathesis/<role>/ (a JUnit file and the run's output).

    python3 Tests/Fuzz/schemathesis_run.py [role ...]
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from datetime import datetime, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "PythonSupport"))
import logistics_api  # noqa: E402
BINARY = os.environ.get("LOGISTICS_BINARY") or os.path.join(ROOT, ".build", "debug", "logistics")
HERE = os.path.dirname(os.path.abspath(__file__))
ARTIFACTS = os.path.join(ROOT, ".ci", "artifacts", "schemathesis")
SECRET = "schemathesis-secret-0123456789abcdef-0123"
ROLES = ["rider", "customer", "vendor", "dispatcher", "admin"]
SUBJECTS = {role: f"5c4e7a00-0000-4000-8000-00000000000{index}" for index, role in enumerate(ROLES, start=1)}
CHECKS = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    # Schema-valid requests refused with 400: the document is looser than the validation behind it.
    "positive_data_acceptance",
    # A wrong method answers 405 with an Allow header naming exactly the documented methods.
    "unsupported_method",
    "allow_header_conformance",
]
PINNED = "4.32.5"  # .ci/run installs this one; another version generates other cases
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20"))
SEED = int(os.environ.get("FUZZ_SEED", "20"))
ROLE_SECONDS = int(os.environ.get("FUZZ_ROLE_SECONDS", "120"))


class Server:
    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix="logistics-fuzz-")
        self.env = dict(os.environ, LOGISTICS_JWT_SECRET=SECRET, LOGISTICS_RATE_LIMIT_ADDRESS="off",
                        LOGISTICS_RATE_LIMIT_CALLER="off", LOGISTICS_RATE_LIMIT_FIXES="off",
                        LOGISTICS_MAP=os.path.join(ROOT, "Maps", "monaco.osm.pbf"), LOG_LEVEL="error")
        self.env.pop("DATABASE_URL", None)
        self.process = subprocess.Popen(
            [BINARY, "serve", "--port", "0", "--data-dir", self.directory],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=self.env, text=True)
        self.log = []
        deadline = time.time() + 180
        self.base = None
        while time.time() < deadline and self.base is None:
            line = self.process.stdout.readline()
            if not line and self.process.poll() is not None:
                break
            self.log.append(line)
            if "listening on http://" in line:
                self.base = "http://" + line.split("listening on http://", 1)[1].split()[0]
        if self.base is None:
            self.stop()
            raise RuntimeError("the server did not start:\n" + "".join(self.log[-20:]))
        # Keep reading so its output never fills the pipe; the last lines are shown if something fails.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.process.stdout:
            self.log.append(line)
            del self.log[:-200]

    def token(self, role):
        return subprocess.check_output(
            [BINARY, "token", "--role", role, "--sub", SUBJECTS[role], "--ttl", "2h", "--data-dir", self.directory],
            env=self.env, text=True).strip()

    def call(self, method, path, token, body=None):
        """One request of the seeding; the answer's JSON, or None when it was refused."""
        try:
            return logistics_api.call(self.base, method, path, token, body, expect=range(200, 300))
        except logistics_api.Refused as refusal:
            print(f"   seeding: {method} {path} answered {refusal.status}", flush=True)
            return None

    def seed(self, tokens):
        """A small world the runs can reach into: orders of the vendor for the customer (one on its way with the
        rider, one offered, one new), a tracking link and a device. Half the generated ids are drawn from these
        (see config), so operations get past 404 to their real work."""
        def now():
            return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        store = {"lat": 43.7396, "lon": 7.4276, "accuracyM": 5}
        order = {
            "externalRef": "FUZZ", "vendor": {"name": "Café", "address": "Place du Casino", "location": store},
            "customer": {"id": SUBJECTS["customer"], "name": "Priya", "phone": "+377 93 15 00 01",
                         "address": "Quai Antoine 1er", "location": {"lat": 43.7347, "lon": 7.4240}},
        }
        orders = [self.call("POST", "/api/v1/orders", tokens["vendor"], dict(order, podType=kind))
                  for kind in ("OTP", "PHOTO", "OTP")]
        ids = {"orderId": [o["orderId"] for o in orders if o], "taskId": [], "offerId": [],
               "riderId": [SUBJECTS["rider"]], "token": [], "deviceId": ["fuzz-device"]}
        for order_id in ids["orderId"][:2]:
            self.call("POST", f"/api/v1/orders/{order_id}/ready", tokens["vendor"])
        self.call("PUT", "/api/v1/rider/availability", tokens["rider"], {"status": "ONLINE"})
        self.call("POST", "/api/v1/rider/locations", tokens["rider"], {"fixes": [dict(store, recordedAt=now())]})
        self.call("PUT", "/api/v1/me/devices/fuzz-device", tokens["rider"], {"platform": "android", "pushToken": "t"})
        for index, order_id in enumerate(ids["orderId"][:2]):
            made = self.call("POST", f"/api/v1/orders/{order_id}/offers", tokens["dispatcher"],
                             {"riderIds": [SUBJECTS["rider"]]})
            ids["offerId"] += [offer["offerId"] for offer in (made or {}).get("offers", [])]
            if index == 0 and ids["offerId"]:
                task = self.call("POST", f"/api/v1/rider/offers/{ids['offerId'][0]}/accept", tokens["rider"])
                if task:
                    ids["taskId"].append(task["taskId"])
                    for status in ("ARRIVED_AT_STORE", "PICKED_UP"):
                        self.call("PATCH", f"/api/v1/rider/tasks/{task['taskId']}/status", tokens["rider"],
                                  {"status": status, "location": store, "occurredAt": now(),
                                   "eventId": str(uuid.uuid4())})
                link = self.call("POST", f"/api/v1/orders/{order_id}/tracking-links", tokens["dispatcher"])
                if link:
                    ids["token"].append(link["token"])
        return {name: values for name, values in ids.items() if values}

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        shutil.rmtree(self.directory, ignore_errors=True)


def schemathesis_command():
    """Schemathesis of this interpreter, whatever PATH says (.ci/run installs the pinned version for it)."""
    try:
        import schemathesis
    except ImportError:
        raise SystemExit("schemathesis is not installed: python3 -m pip install schemathesis==" + PINNED)
    if schemathesis.__version__ != PINNED:
        print(f"note: schemathesis {schemathesis.__version__}, not the pinned {PINNED}: cases will differ", flush=True)
    return [sys.executable, "-m", "schemathesis.cli"]


def write_config(directory, known):
    """The committed settings plus the seeded ids as dictionaries, each drawn for half of its path parameters."""
    with open(os.path.join(HERE, "schemathesis.toml")) as base:
        text = base.read()
    for name, values in known.items():
        text += f"\n[dictionaries.{name}]\nvalues = {json.dumps(values)}\n"
    text += "\n[parameters]\n" + "".join(
        f'"path.{name}" = {{ dictionary = "{name}", probability = 0.5 }}\n' for name in known)
    path = os.path.join(directory, "schemathesis.toml")
    with open(path, "w") as config:
        config.write(text)
    return path


def run_role(server, role, token, config):
    """Runs schemathesis with this role's token; returns (passed, cases, seconds)."""
    report = os.path.join(ARTIFACTS, role)
    os.makedirs(report, exist_ok=True)
    command = schemathesis_command() + [
        "--config-file", config, "--no-color",
        "run", server.base + "/openapi.json",
        "--checks", ",".join(CHECKS),
        "--header", "Authorization: Bearer " + token,
        "--phases", "examples,coverage,fuzzing",
        "--max-examples", str(EXAMPLES), "--seed", str(SEED),
        "--workers", "1", "--request-timeout", "10", "--generation-database", "none",
        "--report", "junit", "--report-dir", report,
    ]
    # The store schema-valid orders name (`vendorId`): the vendor's, registered by the seeding's orders.
    env = dict(os.environ, SCHEMATHESIS_HOOKS=os.path.join(HERE, "schemathesis_hooks.py"),
               FUZZ_STORE_ID=SUBJECTS["vendor"])
    started = time.time()
    try:
        # Run where hypothesis may leave its files: the server's temporary directory, not the work tree.
        result = subprocess.run(command, env=env, text=True, capture_output=True, timeout=ROLE_SECONDS,
                                cwd=server.directory)
        output, status = result.stdout + result.stderr, result.returncode
    except subprocess.TimeoutExpired as expired:
        output = (expired.stdout or b"").decode(errors="replace") if isinstance(expired.stdout, bytes) \
            else (expired.stdout or "")
        output += f"\n!! schemathesis still running after {ROLE_SECONDS} s: stopped"
        status = 124
    seconds = time.time() - started
    with open(os.path.join(report, "output.txt"), "w") as log:
        log.write(output)
    cases = sum(int(count) for count in re.findall(r"(\d+) generated", output))
    if status != 0:
        print(output)
    return status == 0, cases, seconds


def main():
    roles = sys.argv[1:] or ROLES
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    started = time.time()
    server = Server()
    results = []
    try:
        with urllib.request.urlopen(server.base + "/openapi.json", timeout=30) as response:
            operations = sum(len(item) for item in json.load(response)["paths"].values())
        print(f"schemathesis on {server.base}/openapi.json: {operations} operations, seed {SEED}, "
              f"{EXAMPLES} examples per operation and phase", flush=True)
        tokens = {role: server.token(role) for role in ROLES}
        known = server.seed(tokens)
        print("seeded: " + ", ".join(f"{len(values)} {name}" for name, values in known.items()), flush=True)
        config = write_config(server.directory, known)
        for role in roles:
            passed, cases, seconds = run_role(server, role, tokens[role], config)
            results.append((role, passed, cases, seconds))
            print(f"{'ok  ' if passed else 'FAIL'} {role}: {cases} cases in {seconds:.0f} s", flush=True)
            if server.process.poll() is not None:
                print("".join(server.log[-40:]))
                raise RuntimeError(f"the server exited ({server.process.returncode}) during the {role} run")
    finally:
        server.stop()
    total = sum(cases for _, _, cases, _ in results)
    failed = [role for role, passed, _, _ in results if not passed]
    print(f"schemathesis: {total} cases for {len(results)} roles in {time.time() - started:.0f} s; "
          + (f"failed: {', '.join(failed)}" if failed else "no failures"), flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
