"""Benchmark (not a test): the dispatcher's live map with 1,000 simulated riders, each moving every 5 s.

Run after `swift build`: python3 Benchmarks/browser/dispatch_bench.py [--riders 1000] [--seconds 60]
(LOGISTICS_BINARY=.build/release/logistics to drive a release server). Localhost only; Debian's chromium.
Reports the time each animation-frame callback takes in the page (the page applies a frame's batch of stream
messages and draws the map in one; timed from outside by frame_timing's observer): p50/p95/p99/max per frame, stream
messages per frame, and the fixes/s the server accepted.
"""

import argparse
import base64
import hashlib
import hmac
import http.client
import json
import math
import random
import statistics
import threading
import time
import uuid

import os  # noqa: E402
import sys  # noqa: E402

# The browser tests' page drivers and server helpers are shared with these benches.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Browser"))

import frame_timing
import tracking_page_test as pages

MONACO = (43.7245, 7.4090, 43.7500, 7.4400)  # south, west, north, east


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def mint(role, subject, name=None, ttl=3600):
    """A development token signed like `logistics token` (HS256 with the server's secret)."""
    now = int(time.time())
    claims = {"sub": subject, "role": role, "iat": now, "exp": now + ttl, "iss": "rider-logistics",
              "aud": "rider-logistics-api"}
    if name:
        claims["name"] = name
    head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + b64(json.dumps(claims).encode())
    signature = hmac.new(pages.SECRET.encode(), head.encode(), hashlib.sha256).digest()
    return head + "." + b64(signature)


class Rider:
    def __init__(self, index):
        self.id = str(uuid.uuid4())
        self.token = mint("rider", self.id, name=f"Rider {index + 1}")
        self.lat = random.uniform(MONACO[0], MONACO[2])
        self.lon = random.uniform(MONACO[1], MONACO[3])
        self.heading = random.uniform(0, 360)

    def step(self):
        """Eight metres a second for five seconds, turning a little; kept inside Monaco."""
        self.heading = (self.heading + random.uniform(-30, 30)) % 360
        metres = 40
        self.lat += metres * math.cos(math.radians(self.heading)) / 111_320
        self.lon += metres * math.sin(math.radians(self.heading)) / (111_320 * math.cos(math.radians(self.lat)))
        if not (MONACO[0] < self.lat < MONACO[2] and MONACO[1] < self.lon < MONACO[3]):
            self.heading = (self.heading + 180) % 360
            self.lat = min(max(self.lat, MONACO[0]), MONACO[2])
            self.lon = min(max(self.lon, MONACO[1]), MONACO[3])


def post(connection, method, path, token, body):
    connection.request(method, path, json.dumps(body), {
        "Authorization": "Bearer " + token, "Content-Type": "application/json"})
    response = connection.getresponse()
    answer = response.read()
    if response.status >= 400:
        print(f"  {method} {path} answered {response.status}: {answer[:200]!r}", flush=True)
    return response.status


def drive(base, riders, stop, counts):
    """One worker: its riders each send a fix every 5 s, spread evenly over the period."""
    host = base.replace("http://", "")
    connection = http.client.HTTPConnection(host, timeout=30)
    period = 5.0
    started = time.monotonic()
    tick = 0
    while not stop.is_set():
        for index, rider in enumerate(riders):
            due = started + tick * period + index * period / len(riders)
            delay = due - time.monotonic()
            if delay > 0 and stop.wait(delay):
                return
            rider.step()
            try:
                status = post(connection, "POST", "/api/v1/rider/locations", rider.token, {"fixes": [{
                    "lat": rider.lat, "lon": rider.lon, "accuracyM": 8, "speedMps": 8,
                    "headingDeg": round(rider.heading, 1), "recordedAt": pages.now()}]})
                counts["ok" if status == 202 else "refused"] += 1
            except (OSError, http.client.HTTPException):
                counts["failed"] += 1
                connection.close()
                connection = http.client.HTTPConnection(host, timeout=30)
        tick += 1


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--riders", type=int, default=1000)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--workers", type=int, default=8)
    options = parser.parse_args()

    server = pages.Server()
    stop = threading.Event()
    threads = []
    try:
        print(f"{options.riders} riders going online…", flush=True)
        riders = [Rider(index) for index in range(options.riders)]
        host = server.base.replace("http://", "")
        connection = http.client.HTTPConnection(host, timeout=30)
        for rider in riders:
            post(connection, "PUT", "/api/v1/rider/availability", rider.token, {"status": "ONLINE"})
        counts = {"ok": 0, "refused": 0, "failed": 0}
        share = math.ceil(options.riders / options.workers)
        for worker in range(options.workers):
            thread = threading.Thread(
                target=drive, args=(server.base, riders[worker * share:(worker + 1) * share], stop, counts), daemon=True)
            thread.start()
            threads.append(thread)

        dispatcher = mint("dispatcher", str(uuid.uuid4()), name="Bench Dispatcher")
        driver = pages.browser(1280, 800)
        try:
            frame_timing.install(driver)
            driver.get(server.base + "/dispatch#token=" + dispatcher)
            print("waiting for every rider to appear on the map…", flush=True)
            deadline = time.time() + 60
            while time.time() < deadline:
                seen = int(driver.find_element(pages.By.ID, "rider-count").text or 0)
                if seen >= options.riders:
                    break
                time.sleep(0.5)
            print(f"{seen} riders on the map; measuring for {options.seconds} s…", flush=True)
            frame_timing.reset(driver)
            accepted_before = counts["ok"]
            started = time.time()
            for second in range(options.seconds):
                time.sleep(1)
                if second % 10 == 9:
                    print(f"  {second + 1} s", flush=True)
            elapsed = time.time() - started
            batches = frame_timing.frames(driver) or []
            messages = frame_timing.messages(driver)
            fixes_per_second = (counts["ok"] - accepted_before) / elapsed
            driver.save_screenshot(pages.os.path.join(pages.ARTIFACTS, "dispatch-1000-riders-1280x800.png"))
            errors = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        finally:
            driver.quit()
        print(f"riders: {options.riders}, each moving every 5 s; server accepted {fixes_per_second:.0f} fixes/s "
              f"(refused {counts['refused']}, failed {counts['failed']})")
        print(f"animation frames in the page: {len(batches)} in {elapsed:.0f} s, "
              f"{messages / max(1, len(batches)):.1f} stream messages per frame")
        print(f"time per frame (apply + draw, performance.now): p50 {statistics.median(batches):.2f} ms, "
              f"p95 {percentile(batches, 0.95):.2f} ms, p99 {percentile(batches, 0.99):.2f} ms, "
              f"max {max(batches):.2f} ms (target p95 < 16 ms)")
        if errors:
            print(f"console errors: {errors[:3]}")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)
        server.stop()


if __name__ == "__main__":
    main()
