"""Our server as the benchmark uses it: `logistics serve --port 0` on Monaco with a throw-away data directory, a
dispatcher token from `logistics token`, and JSON calls to the matrix and plans endpoints.

Starting follows Tests/Browser/browser_support.py and Tests/Faults/two_instances/processes.py: the server prints
"listening on http://HOST:PORT" once bound, and its output is drained afterwards so a full pipe cannot stall it.
"""

import json
import os
import queue
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_BINARY = os.path.join(ROOT, ".build", "release", "logistics")
DISPATCHER = "00000000-0000-4000-8000-0000000000d1"
# Seconds on top of the solver's budget before a plans call counts as hung: parsing, answer and a loaded machine.
PLAN_SLACK = 60


class ServerError(Exception):
    """An expected failure of our server (missing binary, no start, an error answer), printed without a traceback."""


class Server:
    def __init__(self, binary=DEFAULT_BINARY, start_timeout=180):
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            raise ServerError(f"no server binary at {binary}: build it (swift build -c release) or pass --binary")
        map_path = os.path.join(ROOT, "Maps", "monaco.osm.pbf")
        if not os.path.isfile(map_path):
            raise ServerError(f"the Monaco map is missing at {map_path}")
        self.binary = binary
        self.directory = tempfile.mkdtemp(prefix="logistics-optimizer-bench-")
        self.secret = secrets.token_hex(32)  # 64 characters, fresh per run: nothing else may mint our tokens
        self.log_path = os.path.join(self.directory, "server.log")
        env = dict(os.environ, LOGISTICS_JWT_SECRET=self.secret, LOGISTICS_MAP=map_path,
                   LOGISTICS_MAP_CACHE_DIR=os.path.join(self.directory, "maps"),
                   # Building instances asks for matrices back to back; per-caller limits are not what is measured.
                   LOGISTICS_RATE_LIMIT_ADDRESS="off", LOGISTICS_RATE_LIMIT_CALLER="off",
                   LOGISTICS_RATE_LIMIT_FIXES="off")
        # The data directory store, not a database someone's shell happens to point at.
        env.pop("DATABASE_URL", None)
        self.process = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", self.directory],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
        self.base = None
        self.token = None
        lines = queue.Queue()
        threading.Thread(target=self._drain, args=(lines,), daemon=True).start()
        try:
            self._wait_listening(lines, start_timeout)
            self._wait_ready(start_timeout)
            self.token = self._mint()
        except BaseException:
            self.stop()
            raise

    def _drain(self, lines):
        # A reader thread rather than readline() in the caller: a server that prints nothing must still time out.
        with open(self.log_path, "w") as log:
            for line in self.process.stdout:
                log.write(line)
                log.flush()
                lines.put(line)
        lines.put(None)

    def _wait_listening(self, lines, timeout):
        deadline = time.monotonic() + timeout
        while self.base is None:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise ServerError(f"the server printed no listening address within {timeout} s; {self._tail()}")
            if line is None:
                raise ServerError(f"the server exited with status {self.process.wait()} before listening; "
                                  f"{self._tail()}")
            # The configuration printed before it may name other URLs (an external routing service).
            if "listening on http://" in line:
                self.base = "http://" + line.split("listening on http://", 1)[1].split()[0]

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerError(f"the server exited with status {self.process.returncode}; {self._tail()}")
            try:
                with urllib.request.urlopen(self.base + "/health/ready", timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.25)
        raise ServerError(f"GET /health/ready did not answer 200 within {timeout} s; {self._tail()}")

    def _mint(self):
        env = dict(os.environ, LOGISTICS_JWT_SECRET=self.secret)
        env.pop("DATABASE_URL", None)
        try:
            done = subprocess.run([self.binary, "token", "--role", "dispatcher", "--sub", DISPATCHER,
                                   "--data-dir", self.directory], env=env, capture_output=True, text=True,
                                  timeout=60)
        except subprocess.TimeoutExpired:
            raise ServerError("`logistics token` did not finish within 60 s")
        token = done.stdout.strip().splitlines()[-1].strip() if done.stdout.strip() else ""
        if done.returncode != 0 or token.count(".") != 2:
            raise ServerError(f"`logistics token` failed (status {done.returncode}): "
                              f"{(done.stderr or done.stdout).strip()[:400]}")
        return token

    def _tail(self, lines=15):
        try:
            with open(self.log_path) as log:
                text = "".join(log.readlines()[-lines:]).strip()
        except OSError:
            text = ""
        return f"its last output:\n{text}" if text else "it printed nothing"

    def call(self, path, body, timeout=60):
        """POST JSON; returns (status, parsed body). HTTP errors are answers here, not exceptions."""
        data = json.dumps(body, separators=(",", ":")).encode()
        request = urllib.request.Request(self.base + path, data=data, method="POST", headers={
            "Content-Type": "application/json", "Authorization": "Bearer " + self.token})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode(errors="replace")
        except (urllib.error.URLError, OSError) as error:
            alive = "running" if self.process.poll() is None else f"exited ({self.process.returncode})"
            raise ServerError(f"POST {path} failed: {error}; the server is {alive}; {self._tail()}")
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def matrix(self, points):
        return self.call("/api/v1/matrix", {"sources": points}, timeout=120)

    def plan(self, doc, budget, seed):
        """Returns (solution, wall seconds including HTTP). `budget` is our solver's time limit in seconds."""
        body = dict(doc, options={"seed": seed, "time_limit": budget})
        size = len(json.dumps(body, separators=(",", ":")))
        started = time.perf_counter()
        status, answer = self.call("/api/v1/plans", body, timeout=budget + PLAN_SLACK)
        wall = time.perf_counter() - started
        if status != 200 or not isinstance(answer, dict):
            detail = answer if isinstance(answer, str) else json.dumps(answer)
            hint = f" (the request body was {size} bytes)" if status == 413 else ""
            raise ServerError(f"POST /api/v1/plans answered {status}{hint}: {detail[:600]}")
        return answer, wall

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
