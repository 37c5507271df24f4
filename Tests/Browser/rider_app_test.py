"""The rider's web app (GET /rider) in a real browser, used as a rider uses it, against the real server binary.

Run after `swift build`: python3 Tests/Browser/rider_app_test.py [scenario ...] (whole, offers, routing, bad,
flaky, far, offline, photo; all by default). Debian's chromium driven by selenium; controls are found by their
visible words (XPath on text). Screenshots of every screen at 360x740 and 1280x800 go to .ci/artifacts/rider-*.png,
each checked for being drawn and for WCAG AA contrast; every page's console and requests are checked at the end.
Only localhost is contacted. Two servers (one with a 3 s offer TTL and an unreachable routing service) and two
phones at a time; about 75 s here. It stops by itself, prints ok/FAIL lines and a summary, exits non-zero on a FAIL.

Beside chromedriver the test opens a second DevTools connection to the same browser (websocket-client comes with
selenium) for what selenium cannot do: taking the service worker offline together with the page (the "offline" of
DevTools applies per target), holding a request in flight (a slow network), losing the server's answer on the way
back, and answering 503 in the server's place.
"""

import base64
import faulthandler
import itertools
import json
import math
import os
import random
import re
import struct
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request
import uuid
import zlib

import websocket
from selenium.common.exceptions import ElementNotInteractableException, StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from browser_support import (ARTIFACTS, HOME, STORE, Server, browser, canvas_ink, check, check_contrast, failures,
                             mint, now, parse_time)

PHONE = (360, 740)
DESKTOP = (1280, 800)
# The app's words the test looks for (the contract's, in English).
SIGN_IN = "Sign in"
GO_ONLINE, GO_OFFLINE = "Go Online", "Go Offline"
WAITING = "Waiting for offers"
ACCEPT, DECLINE = "Accept Task", "Decline"
EXPIRED = "This offer has expired"
TAKEN = "This order has already been assigned"
CANCELLED = "This order has been cancelled"
NOT_ONLINE = "You are offline. Go online to accept offers."
HAS_TASK = "You already have an active task."
AT_STORE, PICKED_UP, AT_DESTINATION = "Arrived at Store", "Picked Up", "Arrived at Destination"
TO_VENDOR, TO_CUSTOMER = "Navigate to Vendor", "Navigate to Customer"
EXIT_NAV, RESUME_NAV, RECENTER = "Exit Navigation", "Resume Navigation", "Re-center"
SEARCHING_GPS = "Searching for GPS signal"
MUTE, UNMUTE = "Mute", "Unmute"
NAV_DOWN = "Navigation service is temporarily unavailable. Please try again shortly."
FAR_QUESTION = "You seem far from the destination. Are you sure you have arrived?"
CAPTURE, ENTER_OTP, SUBMIT_OTP = "Capture Photo", "Enter OTP", "Submit OTP"
DELIVERED, COMPLETE = "Delivered", "Delivery Complete"
RETRYING = "No connection, retrying..."
REPORT = "Report a problem"

# Records what the page asks the browser to say (speechSynthesis exists in headless chromium but says nothing).
RECORDER = """
(() => {
    // What the network did, kept across reloads (sessionStorage) for the offline check's diagnostics.
    const note = (what) => {
        try {
            const list = JSON.parse(sessionStorage.getItem('__net') || '[]');
            list.push([Date.now() % 100000, what, navigator.onLine]);
            sessionStorage.setItem('__net', JSON.stringify(list.slice(-40)));
        } catch (error) {}
    };
    addEventListener('online', () => note('online'));
    addEventListener('offline', () => note('offline'));
    const fetch = window.fetch;
    window.fetch = function (resource, options) {
        const method = (options && options.method) || 'GET';
        if (method !== 'GET') note(method + ' ' + String(resource).slice(-40));
        return fetch.apply(this, arguments);
    };
    window.__spoken = [];
    const synth = window.speechSynthesis;
    if (!synth) return;
    const speak = synth.speak.bind(synth);
    synth.speak = (utterance) => {
        window.__spoken.push(String(utterance && utterance.text));
        try { speak(utterance); } catch (error) {}
    };
})();
"""


class Abort(Exception):
    """A step a scenario cannot go on without did not happen (already reported as FAIL)."""


def need(result, what=""):
    if not result:
        raise Abort(what)
    return result


def literal(text):
    """An XPath string literal for any text."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ", \"'\", ".join(f"'{part}'" for part in text.split("'")) + ")"


# ---------------------------------------------------------------------------------------------------------------
# A second DevTools connection: offline for the page and its service worker, requests held in flight.

class DevTools:
    def __init__(self, driver):
        address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
        with urllib.request.urlopen(f"http://{address}/json/version", timeout=10) as response:
            url = json.load(response)["webSocketDebuggerUrl"]
        self.socket = websocket.create_connection(url, suppress_origin=True, timeout=None)
        self.ids = itertools.count(1)
        self.write = threading.Lock()
        self.replies = {}
        self.arrived = threading.Condition()
        self.sessions = {}
        self.offline = False
        self.holds = []
        self.held = []
        self.leaks = []
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()
        self.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True})

    def _post(self, method, params=None, session=None):
        message = {"id": next(self.ids), "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        with self.write:
            self.socket.send(json.dumps(message))
        return message["id"]

    def send(self, method, params=None, session=None, timeout=10):
        ident = self._post(method, params, session)
        with self.arrived:
            self.arrived.wait_for(lambda: ident in self.replies or self.closed, timeout)
            reply = self.replies.pop(ident, {})
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def _configure(self, session):
        """What every page and worker gets as it attaches: the current network state and held requests."""
        self._post("Network.enable", {}, session)
        if self.offline:
            self._post("Network.emulateNetworkConditions", self._conditions(), session)
        if self.holds or self.offline:
            self._post("Fetch.enable", {"patterns": self._patterns()}, session)

    def _conditions(self):
        return {"offline": self.offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}

    def _patterns(self):
        if self.offline:
            return [{"urlPattern": "*", "requestStage": "Request"}]
        return [{"urlPattern": f"*{rule['part']}*", "requestStage": rule["stage"]} for rule in self.holds]

    def _read(self):
        while True:
            try:
                message = json.loads(self.socket.recv())
            except Exception:
                with self.arrived:
                    self.closed = True
                    self.arrived.notify_all()
                return
            if "id" in message:
                with self.arrived:
                    self.replies[message["id"]] = message
                    self.arrived.notify_all()
                continue
            method, params = message.get("method"), message.get("params", {})
            try:
                if method == "Target.attachedToTarget":
                    session = params["sessionId"]
                    kind = params["targetInfo"]["type"]
                    if kind in ("page", "iframe", "service_worker", "worker", "shared_worker"):
                        self.sessions[session] = kind
                        self._configure(session)
                    if params.get("waitingForDebugger"):
                        self._post("Runtime.runIfWaitingForDebugger", {}, session)
                elif method == "Target.detachedFromTarget":
                    self.sessions.pop(params.get("sessionId"), None)
                elif method == "Fetch.requestPaused":
                    self._paused(message.get("sessionId"), params)
            except Exception:
                pass

    def _paused(self, session, params):
        """A request held by a rule: let it go after a while, fail it, or answer it in the server's place."""
        url, ident = params["request"]["url"], params["requestId"]
        if self.offline:
            self.leaks.append(url)
            self._post("Fetch.failRequest", {"requestId": ident, "errorReason": "InternetDisconnected"}, session)
            return
        stage = "Response" if "responseStatusCode" in params or "responseErrorReason" in params else "Request"
        rule = next((rule for rule in self.holds if rule["part"] in url and rule["stage"] == stage
                     and rule["times"] != 0), None)
        if rule is None:
            self._post("Fetch.continueRequest", {"requestId": ident}, session)
            return
        rule["times"] -= 1
        self.held.append((url, params["request"]["method"], stage, rule["action"]))
        if rule["action"] == "delay":
            threading.Timer(rule["seconds"], self._post, ("Fetch.continueRequest", {"requestId": ident},
                                                          session)).start()
        elif rule["action"] == "drop":
            # The server did its work; its answer is lost on the way back (a connection reset).
            self._post("Fetch.failRequest", {"requestId": ident, "errorReason": "ConnectionReset"}, session)
        else:
            body = json.dumps({"type": "about:blank", "title": "Service unavailable", "status": rule["action"]})
            self._post("Fetch.fulfillRequest", {
                "requestId": ident, "responseCode": rule["action"],
                "responseHeaders": [{"name": "Content-Type", "value": "application/problem+json"},
                                    {"name": "Retry-After", "value": "1"}],
                "body": base64.b64encode(body.encode()).decode()}, session)

    def set_offline(self, offline):
        """Offline as DevTools makes it, for the page and its service worker. Chromium was seen to drop the
        emulation now and then (an 'online' event in the page after a second or two, with requests going out), so
        while offline every request that still reaches the network layer is failed as well (counted in `leaks`),
        and the emulation is set again every 200 ms."""
        self.offline = offline
        self.leaks = []
        for session in list(self.sessions):
            try:
                self.send("Network.emulateNetworkConditions", self._conditions(), session)
                if offline or self.holds:
                    self.send("Fetch.enable", {"patterns": self._patterns()}, session)
                else:
                    self.send("Fetch.disable", {}, session)
            except RuntimeError:
                pass
        if offline:
            def keep():
                while self.offline and not self.closed:
                    for session in list(self.sessions):
                        try:
                            self._post("Network.emulateNetworkConditions", self._conditions(), session)
                        except Exception:
                            pass
                    time.sleep(0.2)
            threading.Thread(target=keep, daemon=True).start()

    def hold(self, part, seconds):
        """Requests whose URL contains `part` wait `seconds` in the browser before they leave (a slow network)."""
        self.intercept({"part": part, "stage": "Request", "action": "delay", "seconds": seconds, "times": -1})

    def intercept(self, *rules):
        """Rules for requests whose URL contains a part: at the Request stage "delay" (seconds) or an HTTP status
        answered in the server's place; at the Response stage "drop" (the server's answer is lost). `times` rules
        apply that many times (-1: always); other requests go on untouched."""
        self.holds = list(rules)
        for session in list(self.sessions):
            try:
                self.send("Fetch.enable", {"patterns": self._patterns()}, session)
            except RuntimeError:
                pass

    def release(self):
        self.holds = []
        for session in list(self.sessions):
            try:
                if self.offline:
                    self.send("Fetch.enable", {"patterns": self._patterns()}, session)
                else:
                    self.send("Fetch.disable", {}, session)
            except RuntimeError:
                pass

    def service_workers(self):
        return [info for info in self.send("Target.getTargets")["targetInfos"] if info["type"] == "service_worker"]

    def close(self):
        try:
            self.socket.close()
        except Exception:
            pass


# ---------------------------------------------------------------------------------------------------------------
# The server side: riders, orders, offers and the event log through the API.

def rider_identity(name):
    rider_id = str(uuid.uuid4())
    return rider_id, mint("rider", rider_id, name=name)


DISPATCHER = mint("dispatcher", str(uuid.uuid4()), name="Test Dispatcher")
ADMIN = mint("admin", str(uuid.uuid4()), name="Test Admin")


def new_order(server, pod="OTP", ref=None, customer_name="Priya Shah"):
    customer_id = str(uuid.uuid4())
    body = {"podType": pod, "externalRef": ref or f"R-{random.randint(1000, 9999)}",
            "vendor": {"name": "Café de Paris", "address": "Place du Casino", "location": STORE},
            "customer": {"id": customer_id, "name": customer_name, "phone": "+377 93 15 00 01",
                         "address": "Avenue de Fontvieille 12", "location": HOME},
            "notes": "Ring twice"}
    order_id = server.call("POST", "/api/v1/orders", DISPATCHER, body)["orderId"]
    server.call("POST", f"/api/v1/orders/{order_id}/ready", DISPATCHER)
    return order_id, mint("customer", customer_id)


def offer(server, order_id, *rider_ids):
    return server.call("POST", f"/api/v1/orders/{order_id}/offers", DISPATCHER,
                       {"riderIds": list(rider_ids)})["offers"]



def tap_accept_if_shown(page):
    """Taps "Accept Task" when the page still shows it: the stream may already have told the page the outcome."""
    button = page.control(ACCEPT)
    if button is not None:
        try:
            page.press(button)
        except Exception:
            pass

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


# ---------------------------------------------------------------------------------------------------------------
# Geometry: routes from the API, points along them, distances.

def decode_polyline(text, precision=6):
    points, index, lat, lon = [], 0, 0, 0
    factor = 10 ** precision
    while index < len(text):
        for which in range(2):
            shift = result = 0
            while True:
                byte = ord(text[index]) - 63
                index += 1
                result |= (byte & 0x1F) << shift
                shift += 5
                if byte < 0x20:
                    break
            delta = ~(result >> 1) if result & 1 else result >> 1
            if which == 0:
                lat += delta
            else:
                lon += delta
        points.append((lat / factor, lon / factor))
    return points


def metres(a, b):
    """Distance in metres between two (lat, lon) points (equirectangular; fine within a city)."""
    x = math.radians(b[1] - a[1]) * math.cos(math.radians((a[0] + b[0]) / 2))
    y = math.radians(b[0] - a[0])
    return 6_371_000 * math.hypot(x, y)


def resample(points, step):
    """Points every `step` metres along a polyline."""
    out = [points[0]]
    carry = 0.0
    for a, b in zip(points, points[1:]):
        length = metres(a, b)
        position = step - carry
        while position <= length:
            share = position / length
            out.append((a[0] + (b[0] - a[0]) * share, a[1] + (b[1] - a[1]) * share))
            position += step
        carry = (carry + length) % step if length else carry
    if out[-1] != points[-1]:
        out.append(points[-1])
    return out


def distance_to_line(point, line):
    best = float("inf")
    for a, b in zip(line, line[1:]):
        scale = math.cos(math.radians(point[0]))
        ax, ay = (a[1] - point[1]) * scale, a[0] - point[0]
        bx, by = (b[1] - point[1]) * scale, b[0] - point[0]
        dx, dy = bx - ax, by - ay
        share = 0 if dx == dy == 0 else max(0, min(1, -(ax * dx + ay * dy) / (dx * dx + dy * dy)))
        best = min(best, math.hypot(ax + share * dx, ay + share * dy) * 111_320)
    return best


def road_route(server, a, b):
    """The route between two points as the dispatcher's API gives it: points, step instructions, announcements."""
    route = server.call("GET", f"/api/v1/routes?from={a[0]},{a[1]}&to={b[0]},{b[1]}", DISPATCHER)
    steps = [step for leg in route["legs"] for step in leg["steps"]]
    return {"points": decode_polyline(route["geometry"]), "distanceM": route["distanceM"],
            "instructions": {step["instruction"] for step in steps if step.get("instruction")},
            "announcements": {voice["announcement"] for step in steps for voice in step.get("voiceInstructions", [])}}


# ---------------------------------------------------------------------------------------------------------------
# Pictures: a PNG screenshot read back (is anything drawn?), a JPEG's size.

def png_rgb(data):
    """(width, height, rows of RGB bytes) of an 8-bit PNG, as Chrome writes screenshots."""
    position, chunks, header = 8, [], None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            chunks.append(body)
    width, height, depth, colour = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    previous = bytearray(stride)
    rows = []
    offset = 0
    for _ in range(height):
        kind = raw[offset]
        line = bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                corner = previous[i - channels] if i >= channels else 0
                estimate = left + up - corner
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        previous = line
        rows.append([bytes(line[j:j + 3]) for j in range(0, stride, channels)])
    return width, height, rows


def drawn_share(png):
    """Share of pixels that differ from the most common colour, and how many colours there are."""
    _, _, rows = png_rgb(png)
    counts = {}
    for row in rows:
        for pixel in row:
            counts[pixel] = counts.get(pixel, 0) + 1
    total = sum(counts.values())
    return 1 - max(counts.values()) / total, len(counts)


def jpeg_size(data):
    if data[:2] != b"\xff\xd8":
        return None
    index = 2
    while index + 9 < len(data):
        if data[index] != 0xFF:
            index += 1
            continue
        marker = data[index + 1]
        if marker in (0xD8, 0x01, 0xFF) or 0xD0 <= marker <= 0xD7:
            index += 1 if marker == 0xFF else 2
            continue
        length = int.from_bytes(data[index + 2:index + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            height = int.from_bytes(data[index + 5:index + 7], "big")
            width = int.from_bytes(data[index + 7:index + 9], "big")
            return width, height
        index += 2 + length
    return None


# ---------------------------------------------------------------------------------------------------------------
# The rider's browser.

# HTTP answers the API gives by design that chromium reports on the console as "Failed to load resource".
BY_DESIGN = [r"/api/v1/rider/tasks/active - Failed to load resource: .*status of 404"]
OFFLINE_NOISE = [r"net::ERR_INTERNET_DISCONNECTED", r"WebSocket connection to .* failed",
                 r"Failed to fetch", r"net::ERR_FAILED"]


def status_noise(*codes):
    return [rf"Failed to load resource: the server responded with a status of {code}" for code in codes]


class RiderPage:
    """One rider's phone: a fresh chromium (its own storage), geolocation under the test's control."""

    def __init__(self, server, label, position=None, permission="granted", size=PHONE):
        self.server, self.label, self.size = server, label, size
        self.driver = browser(*size)
        self.devtools = DevTools(self.driver)
        self.console, self.unexpected, self.network, self.allowed = [], [], [], []
        self.devtools.send("Browser.setPermission", {"permission": {"name": "geolocation"}, "setting": permission,
                                                     "origin": server.base})
        self.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
        self.position = None
        if position:
            self.move(position)

    def cdp(self, method, params=None):
        return self.driver.execute_cdp_cmd(method, params or {})

    # Logs -------------------------------------------------------------------------------------------------------
    def drain(self):
        for entry in self.driver.get_log("browser"):
            self.console.append(entry)
            if entry["level"] == "SEVERE" and not any(re.search(pattern, entry["message"])
                                                      for pattern in BY_DESIGN + self.allowed):
                self.unexpected.append(f"[{self.label}] {entry['message'][:300]}")
        for entry in self.driver.get_log("performance"):
            self.network.append(json.loads(entry["message"])["message"])

    def allow(self, *patterns):
        """From now on (until the next allow) these console errors are what the step provokes on purpose."""
        self.drain()
        self.allowed = list(patterns)

    def requests(self, part=None, method=None):
        self.drain()
        found = []
        for message in self.network:
            if message.get("method") == "Network.requestWillBeSent":
                request = message["params"]["request"]
                if (part is None or part in request["url"]) and (method is None or request["method"] == method):
                    found.append(request["url"])
        return found

    def responses(self, part):
        self.drain()
        return [message["params"]["response"] for message in self.network
                if message.get("method") == "Network.responseReceived" and part in message["params"]["response"]["url"]]

    def urls(self):
        self.drain()
        found = []
        for message in self.network:
            if message.get("method") in ("Network.requestWillBeSent", "Network.webSocketCreated"):
                params = message["params"]
                found.append(params.get("request", {}).get("url") or params.get("url"))
        return [url for url in found if url]

    # Finding things by their words ------------------------------------------------------------------------------
    def control(self, words):
        """The visible control (button, link, label, switch) whose words are `words`, else None."""
        w = literal(words)
        kinds = "self::button or self::a or self::label or self::summary or @role='button' or @role='switch'"
        for xpath in [f"//*[{kinds}][normalize-space(.)={w}]",
                      f"//input[(@type='submit' or @type='button') and normalize-space(@value)={w}]",
                      f"//*[{kinds}][@aria-label={w}]",
                      f"//*[self::button or @role='button' or @role='switch'][contains(normalize-space(.), {w})]"]:
            for element in self.driver.find_elements(By.XPATH, xpath):
                try:
                    if element.is_displayed():
                        return element
                except Exception:
                    pass
        return None

    def enabled(self, element):
        return element is not None and element.is_enabled() and element.get_attribute("aria-disabled") != "true"

    def text(self):
        return self.driver.execute_script("return document.body ? document.body.innerText : ''") or ""

    def shows(self, words):
        return words.lower() in self.text().lower()

    def wait_control(self, words, timeout=15, enabled=True, quiet=False):
        return wait(f"{self.label}: '{words}' is shown",
                    lambda: (lambda c: c if c is not None and (not enabled or self.enabled(c)) else None)(
                        self.control(words)), timeout, quiet, self)

    def wait_any(self, choices, timeout=15):
        """The first of these words on screen, as a control or as text."""
        return wait(f"{self.label}: one of {choices} is shown",
                    lambda: next((words for words in choices if self.control(words) is not None
                                  or self.shows(words)), None), timeout, page=self)

    def wait_text(self, words, timeout=15):
        return wait(f"{self.label}: the page says '{words}'", lambda: self.shows(words), timeout, page=self)

    def tap(self, words, timeout=15):
        """Taps the control with these words; returns the (before, after) times of the tap."""
        element = need(self.wait_control(words, timeout, quiet=True), f"'{words}' to tap")
        self.press(element)
        return self.last_tap

    def press(self, element):
        """A tap as a person makes it: the control scrolled to where it can be seen, then clicked."""
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", element)
        before = time.time()
        element.click()
        self.last_tap = (before, time.time())
        return self.last_tap

    # The phone --------------------------------------------------------------------------------------------------
    def get(self, path):
        self.driver.get("about:blank")
        self.driver.get(self.server.base + path)

    def move(self, point, accuracy=5):
        lat, lon = (point["lat"], point["lon"]) if isinstance(point, dict) else point
        self.position = (lat, lon)
        self.cdp("Emulation.setGeolocationOverride", {"latitude": lat, "longitude": lon, "accuracy": accuracy})

    def spoken(self):
        return self.driver.execute_script("return window.__spoken || []")

    def queue_length(self):
        return self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            if (!window.riderApp || !window.riderApp.queueLength) { done(-1); return; }
            window.riderApp.queueLength().then(done, () => done(-2));
        """)

    def screen(self, name, must_show=None):
        """Screenshots of what is on screen at 360x740 and 1280x800: each drawn (not blank) and readable."""
        if must_show:
            check(self.shows(must_show), f"{self.label}: the {name} screen shows '{must_show}'")
        for width, height in [PHONE, DESKTOP]:
            self.cdp("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
            time.sleep(0.35)
            self.driver.save_screenshot(os.path.join(ARTIFACTS, f"rider-{name}-{width}x{height}.png"))
            scale = 240 / width
            small = self.cdp("Page.captureScreenshot", {"format": "png", "clip": {
                "x": 0, "y": 0, "width": width, "height": height, "scale": scale}})["data"]
            share, colours = drawn_share(base64.b64decode(small))
            check(share > 0.01 and colours >= 4,
                  f"{self.label}: rider-{name}-{width}x{height}.png is drawn ({share:.1%} of pixels away from the "
                  f"background, {colours} colours)")
            check_contrast(self.driver, f"{self.label}: {name} at {width}x{height}")
        width, height = self.size
        self.cdp("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
        time.sleep(0.2)

    def close(self):
        try:
            self.drain()
        except Exception as error:
            check(False, f"{self.label}: the browser's logs could be read ({error})")
        origin = self.server.base.split("//", 1)[1]
        foreign = [url for url in self.urls() if not url.startswith(("data:", "blob:"))
                   and url.split("//", 1)[-1].split("/", 1)[0] != origin]
        check(not foreign, f"{self.label}: every request went to the page's own origin ({foreign[:3]})")
        provoked = [entry["message"] for entry in self.console if entry["level"] == "SEVERE"]
        check(not self.unexpected, f"{self.label}: no errors in the browser console ({self.unexpected[:4]}; "
                                   f"{len(provoked) - len(self.unexpected)} reports of answers the steps provoked "
                                   f"on purpose)")
        self.devtools.close()
        self.driver.quit()


def wait(what, condition, timeout=15, quiet=False, page=None):
    """Like wait_for, but returns the condition's value (so a found element can be used); when it does not come,
    what the page shows is printed beside the FAIL line."""
    deadline = time.time() + timeout
    last_error = None
    while time.time() < deadline:
        try:
            value = condition()
            if value:
                if not quiet:
                    print("ok   " + what, flush=True)
                return value
        except Exception as error:
            last_error = error
        time.sleep(0.1)
    check(False, what + " (timed out" + (f"; last error {type(last_error).__name__}" if last_error else "") + ")")
    if page is not None:
        try:
            print("     (on screen: " + " | ".join(page.text().split("\n"))[:400] + ")", flush=True)
        except Exception:
            pass
    return None


def within(moment, window, slack=0.5):
    return window[0] - slack <= moment <= window[1] + slack


def sign_in(page, token, name, expect=(GO_ONLINE, GO_OFFLINE)):
    page.get("/rider#token=" + token)
    need(page.wait_any(list(expect), 20), f"the first screen after signing in ({expect})")
    check("token" not in page.driver.current_url, f"{page.label}: the token is removed from the address bar "
                                                  f"({page.driver.current_url})")
    if name:
        check(page.shows(name), f"{page.label}: the rider's name '{name}' is shown")


def go_online(page):
    page.tap(GO_ONLINE)
    need(page.wait_control(GO_OFFLINE, 10), "the Go Offline switch")
    page.wait_text(WAITING, 10)


# ---------------------------------------------------------------------------------------------------------------
# 1 and 6: a whole delivery through the page, with navigation along the way.

def whole_delivery(server):
    rider_id, rider = rider_identity("Asha Rao")
    page = RiderPage(server, "delivery", position=(STORE["lat"] - 0.002, STORE["lon"] + 0.001))
    try:
        page.get("/rider")
        need(page.wait_control(SIGN_IN, 20), "the sign-in screen")
        check(page.driver.find_elements(By.CSS_SELECTOR, "input, textarea"), "delivery: a box to paste a token in")
        page.screen("sign-in", must_show=SIGN_IN)

        sign_in(page, rider, "Asha Rao")
        check(page.shows("Offline"), "delivery: the status says Offline before going online")
        page.screen("home-offline")
        go_online(page)
        check(server.call("GET", "/api/v1/rider/me", rider)["availability"] == "ONLINE",
              "delivery: the server has the rider ONLINE after 'Go Online'")
        check(page.shows("Online"), "delivery: the status says Online")
        page.screen("home-online", must_show=WAITING)

        order_id, customer = new_order(server, ref="WHOLE-1")
        offer(server, order_id, rider_id)
        need(page.wait_control(ACCEPT, 10), "the offer")
        check(re.search(r"\b\d{1,2} ?s\b", page.text()) is not None,
              f"delivery: the offer shows a countdown in seconds ({page.text()[:160]!r})")
        check(page.shows("Café de Paris") and page.shows("Place du Casino"),
              "delivery: the offer shows the store's name and address")
        check(page.control(DECLINE) is not None, "delivery: the offer can be declined")
        road = road_route(server, (STORE["lat"], STORE["lon"]), (HOME["lat"], HOME["lon"]))["distanceM"]
        check(f"{road / 1000:.1f} km" in page.text(),
              f"delivery: the offer shows the road distance from the store to the customer ({road / 1000:.1f} km; "
              f"it says {re.findall(r'[^|]*km[^|]*', ' | '.join(page.text().splitlines()))[:1]})")
        page.screen("offer", must_show=ACCEPT)

        # A slow network: the accept waits 1.5 s in the browser; the button must not take a second tap meanwhile.
        page.devtools.hold("/accept", 1.5)
        button = page.control(ACCEPT)
        accept_window = [time.time(), 0]
        page.press(button)
        time.sleep(0.3)
        busy = page.control(ACCEPT)
        check(busy is None or not page.enabled(busy), "delivery: 'Accept Task' is disabled while the request runs")
        try:
            if busy is not None:
                page.press(busy)
        except Exception:
            pass
        need(page.wait_control(AT_STORE, 10), "the task screen")
        accept_window[1] = time.time()
        page.devtools.release()
        check(len(page.requests("/accept", "POST")) == 1,
              f"delivery: one accept request for one tap ({len(page.requests('/accept', 'POST'))})")
        order = server.call("GET", f"/api/v1/orders/{order_id}", DISPATCHER)
        check(order["status"] == "RIDER_ASSIGNED" and order["assignedRiderId"] == rider_id,
              f"delivery: the server assigned the order to this rider ({order['status']})")
        task_id = order["taskId"]
        check(page.shows("Priya Shah") and page.shows("Avenue de Fontvieille"),
              "delivery: the task shows the customer's name and address")
        check(page.control("Call") is not None, "delivery: a Call button")
        check(page.control(TO_VENDOR) is not None, "delivery: 'Navigate to Vendor' before pickup")
        check(page.control(REPORT) is not None, "delivery: 'Report a problem'")
        check(page.control(PICKED_UP) is None and page.control(AT_DESTINATION) is None,
              "delivery: only the next status is offered")
        page.screen("task-store", must_show=AT_STORE)

        # Navigation to the store, then back to the task.
        page.tap(TO_VENDOR)
        if page.wait_control(EXIT_NAV, 10):
            wait("delivery: the navigation map is drawn", lambda: canvas_ink(page.driver)[0] > 2000, 10)
            page.tap(EXIT_NAV)
        page.move(STORE)
        taps = {}
        taps["ARRIVED_AT_STORE"] = page.tap(AT_STORE)
        need(page.wait_control(PICKED_UP, 10), "'Picked Up' after arriving")
        taps["PICKED_UP"] = page.tap(PICKED_UP)
        need(page.wait_control(AT_DESTINATION, 10), "'Arrived at Destination' after pickup")
        check(page.control(TO_CUSTOMER) is not None or page.control(RESUME_NAV) is not None,
              "delivery: 'Navigate to Customer' after pickup")
        page.screen("task-customer", must_show=AT_DESTINATION)

        driven = navigate(page, server, task_id)

        taps["ARRIVED_AT_DESTINATION"] = page.tap(AT_DESTINATION)

        def last_seen():
            fleet = server.call("GET", "/api/v1/riders", DISPATCHER)["riders"]
            seen = next((item.get("lastLocation") for item in fleet if item["riderId"] == rider_id), None)
            return (seen and parse_time(seen["recordedAt"]) > driven["started"]
                    and distance_to_line((seen["lat"], seen["lon"]), driven["points"]) < 60 and seen)
        # Fixes go in batches (one kept per 5 s while moving, sent every 10 s or with a status tap, as RiderKit
        # does); the test drives at 200 m/s, so the last one kept may be far behind the door.
        wait("delivery: the page sent the rider's fixes from the way (batched; a status tap sends what waits)",
             last_seen, 5)
        time.sleep(0.3)
        check(not page.shows(FAR_QUESTION), "delivery: no 'far from the destination' question at the door")
        need(page.wait_any([ENTER_OTP, SUBMIT_OTP], 10), "the OTP step")
        delivered = page.control(DELIVERED)
        check(delivered is None or not page.enabled(delivered), "delivery: 'Delivered' is disabled before a proof")
        page.screen("proof-otp", must_show=ENTER_OTP)

        otp = server.call("GET", f"/api/v1/customer/orders/{order_id}", customer)["deliveryOtp"]
        wrong = f"{(int(otp) + 1) % 10000:04d}"
        page.allow(*status_noise(400))
        enter_otp(page, wrong)
        wait("delivery: a wrong OTP shows the attempts left (4)", lambda: re.search(r"\b4\b", page.text()), 10)
        page.allow()
        enter_otp(page, otp)
        need(page.wait_control(DELIVERED, 10, enabled=True), "'Delivered' enabled after the OTP")
        taps["DELIVERED"] = page.tap(DELIVERED)
        need(page.wait_text(COMPLETE, 10), "Delivery Complete")
        page.screen("delivery-complete", must_show=COMPLETE)
        finish = page.control(COMPLETE)
        if finish is not None and not page.shows(WAITING):
            page.press(finish)
        page.wait_text(WAITING, 15)

        # The server's record agrees with every tap.
        log = events(server, order_id)
        statuses = [event for event in log if event["type"] == "DeliveryStatusUpdated" and event.get("status")]
        check([event["status"] for event in statuses] == list(taps),
              f"delivery: the event log has the four taps in order ({[event['status'] for event in statuses]})")
        for event in statuses:
            window = taps.get(event["status"])
            if window:
                check(within(parse_time(event["occurredAt"]), window),
                      f"delivery: {event['status']} occurredAt {event['occurredAt']} is the tap time")
                check(event["actor"]["id"] == rider_id and event["location"] is not None,
                      f"delivery: {event['status']} was recorded for this rider with a location")
        assigned = [event for event in log if event["type"] == "OrderAssigned"]
        check(len(assigned) == 1 and within(parse_time(assigned[0]["occurredAt"]), accept_window, 1.0),
              "delivery: one OrderAssigned at the time of the accept tap")
        proof = [index for index, event in enumerate(log) if event["type"] == "ProofOfDeliveryAccepted"]
        done = [index for index, event in enumerate(log) if event.get("status") == "DELIVERED"
                and event["type"] == "DeliveryStatusUpdated"]
        check(len(proof) == 1 and done and proof[0] < done[0], "delivery: the OTP proof was accepted before DELIVERED")
        check(server.call("GET", f"/api/v1/orders/{order_id}", DISPATCHER)["status"] == "DELIVERED",
              "delivery: the order is DELIVERED")
        check(server.call("GET", f"/api/v1/customer/orders/{order_id}", customer)["status"] == "DELIVERED",
              "delivery: the customer sees DELIVERED")
        me = server.call("GET", "/api/v1/rider/me", rider)
        check(me["availability"] == "ONLINE" and not me.get("activeTaskId"),
              f"delivery: the rider is ONLINE and free again ({me['availability']})")
        check(page.queue_length() == 0, "delivery: nothing is left in the page's queue")
    finally:
        page.close()


def enter_otp(page, code):
    box = otp_box(page)
    if box is None:
        control = page.control(ENTER_OTP)
        if control is not None:
            page.press(control)
        box = wait(f"{page.label}: a box for the OTP", lambda: otp_box(page), 5)
    need(box, "the OTP box")
    box.clear()
    box.send_keys(code)
    page.tap(SUBMIT_OTP)


def otp_box(page):
    for element in page.driver.find_elements(By.CSS_SELECTOR, "input:not([type=file]):not([type=hidden]):not("
                                                              "[type=checkbox]):not([type=radio]), textarea"):
        if element.is_displayed():
            return element
    return None


def navigate(page, server, task_id):
    """RDR-017 along the way to the customer: banner, voice, re-route, lost GPS, exit and resume."""
    start = page.position
    route = road_route(server, start, (HOME["lat"], HOME["lon"]))
    before = len(page.requests("/route"))
    page.tap(TO_CUSTOMER if page.control(TO_CUSTOMER) is not None else RESUME_NAV)
    need(page.wait_control(EXIT_NAV, 10), "the navigation screen")
    driven = {"started": time.time(), "points": [start]}
    wait("navigation: the route is fetched", lambda: len(page.requests("/route")) > before, 10)
    wait("navigation: the map is drawn", lambda: canvas_ink(page.driver)[0] > 2000, 10)
    check(page.control(MUTE) is not None or page.control(UNMUTE) is not None, "navigation: a mute button")
    page.screen("navigation", must_show=EXIT_NAV)

    points = resample(route["points"], 25)
    known = set(route["instructions"])
    seen = []

    def banner():
        text = page.text()
        shown = [instruction for instruction in known if instruction in text]
        if shown and (not seen or seen[-1] != shown[0]):
            seen.append(shown[0])

    # Along the first 40 % of the route, a fix every 120 ms.
    detour_at = int(len(points) * 0.4)
    frames_before = canvas_ink(page.driver)[1]
    for point in points[1:detour_at]:
        page.move(point)
        time.sleep(0.12)
        banner()
    check(canvas_ink(page.driver)[1] != frames_before, "navigation: the map follows the moving position")
    check(len(seen) >= 2, f"navigation: the manoeuvre banner changes along the way ({seen[:4]})")
    distance_text = re.search(r"\d+(\.\d+)? ?(m|km)\b", page.text())
    check(distance_text is not None, "navigation: distances are shown (next manoeuvre, remaining)")
    check(re.search(r"\d{1,2}:\d{2}|\d+ ?min", page.text()) is not None, "navigation: an ETA is shown")

    # Off the route: a side road for 150-odd metres; the page asks the server for a new route from there.
    detour = off_route(server, points[detour_at - 1], route["points"])
    before = len(page.requests("/route"))
    for point in detour:
        page.move(point)
        time.sleep(0.3)
    rerouted = wait("navigation: leaving the route fetches a new route from where the rider is",
                    lambda: len(page.requests("/route")) > before, 10)
    if rerouted:
        fresh = page.requests("/route")[-1]
        where = re.search(r"from=([-\d.]+)(?:,|%2C)([-\d.]+)", fresh)
        check(where and metres((float(where.group(1)), float(where.group(2))), detour[-1]) < 60,
              f"navigation: the new route starts at the rider's position ({fresh.split('?')[-1][:60]})")

    # On along the new route; half way the fixes stop.
    second = road_route(server, detour[-1], (HOME["lat"], HOME["lon"]))
    known |= second["instructions"]
    rest = resample(second["points"], 25)
    middle = len(rest) // 2
    for point in rest[1:middle]:
        page.move(point)
        time.sleep(0.12)
        banner()
    silent = time.time()
    # Panning the map offers Re-center.
    canvas = page.driver.find_elements(By.TAG_NAME, "canvas")
    if canvas:
        ActionChains(page.driver).move_to_element(canvas[0]).click_and_hold().move_by_offset(60, 80)\
            .move_by_offset(30, 40).release().perform()
        if page.wait_control(RECENTER, 5):
            page.tap(RECENTER)
            wait("navigation: Re-center goes away once the map follows the rider again",
                 lambda: page.control(RECENTER) is None, 5)
    searching = wait(f"navigation: '{SEARCHING_GPS}' when fixes stop (gpsLostAfterS 10)",
                     lambda: page.shows(SEARCHING_GPS), max(1, silent + 16 - time.time()))
    if searching:
        print(f"     (shown {time.time() - silent:.1f} s after the last fix)", flush=True)
        page.screen("navigation-searching-gps", must_show=SEARCHING_GPS)
    page.move(rest[middle])
    wait("navigation: the next fix carries on by itself", lambda: not page.shows(SEARCHING_GPS), 8)

    mute = page.control(MUTE)
    if mute is not None:
        page.press(mute)
        check(page.wait_control(UNMUTE, 3), "navigation: 'Mute' turns into 'Unmute'")
        muted_from = len(page.spoken())
    for point in rest[middle + 1:]:
        page.move(point)
        time.sleep(0.12)
        banner()
    if mute is not None:
        check(len(page.spoken()) == muted_from, "navigation: nothing is spoken while muted")
        page.tap(UNMUTE)
    spoken = page.spoken()
    announcements = route["announcements"] | second["announcements"]
    check(any(text in announcements for text in spoken),
          f"navigation: instructions are spoken ({len(spoken)} utterances, e.g. {spoken[:2]})")
    check(len(seen) >= 3, f"navigation: the banner went through the route's manoeuvres ({len(seen)} seen)")
    if page.control(EXIT_NAV) is not None:
        page.tap(EXIT_NAV)
    need(page.wait_control(AT_DESTINATION, 10), "the task screen after Exit Navigation")
    check(page.control(RESUME_NAV) is not None or page.control(TO_CUSTOMER) is not None,
          "navigation: after Exit Navigation it can be resumed")
    driven["points"] += points[1:detour_at] + detour + rest
    return driven


def off_route(server, at, line):
    """A side road from `at`: fixes that end well away (> 70 m) from the route for several fixes in a row."""
    candidates = [(43.7440, 7.4300), (43.7311, 7.4251), (43.7347, 7.4206), (43.7420, 7.4230), (43.7370, 7.4330),
                  (43.7270, 7.4150), (43.7455, 7.4340)]
    for target in candidates:
        try:
            side = road_route(server, at, target)
        except SystemExit:
            continue
        samples = resample(side["points"], 20)
        away = [distance_to_line(point, line) > 70 for point in samples]
        for index in range(len(samples) - 5):
            if all(away[index:index + 5]):
                return samples[:index + 5]
    raise Abort("no side road found to leave the route by")


# ---------------------------------------------------------------------------------------------------------------
# 2: the offer's failures, provoked for real.

def offer_failures(server, ttl):
    rider_id, rider = rider_identity("Ben Okafor")
    other_id, other = rider_identity("Carla Diaz")
    server.call("PUT", "/api/v1/rider/availability", other, {"status": "ONLINE"})
    page = RiderPage(server, "offers", position=STORE)
    try:
        sign_in(page, rider, "Ben Okafor")
        go_online(page)

        def dismiss(words):
            """Back to waiting after a refusal: by itself, or with the control the message comes with."""
            for word in ("OK", "Close", "Dismiss", "Back"):
                control = page.control(word)
                if control is not None:
                    page.press(control)
                    break
            wait(f"offers: after '{words}' the rider waits for offers again",
                 lambda: page.shows(WAITING) and page.control(ACCEPT) is None, 10)

        # Declining: the offer goes, the server is told, and the rider waits again.
        order_id, _ = new_order(server, ref="DECLINE-1")
        offer(server, order_id, rider_id)
        page.tap(DECLINE, 5)
        wait("offers: Decline removes the offer", lambda: page.control(ACCEPT) is None and page.shows(WAITING), 3,
             page=page)
        answers = wait("offers: the decline reaches the server",
                       lambda: [response["status"] for response in page.responses("/decline")], 3)
        check(answers == [200], f"offers: the server took the decline ({answers})")

        # Expired: the rider taps in time, but the network holds the request until the offer's TTL has passed.
        order_id, _ = new_order(server, ref="EXPIRE-1")
        page.allow(*status_noise(410))
        page.devtools.hold("/accept", ttl + 1.5)
        offer(server, order_id, rider_id)
        page.tap(ACCEPT, 5)
        shown = page.wait_text(EXPIRED, ttl + 10)
        answers = wait("offers: the held accept reached the server after the offer's time",
                       lambda: [response["status"] for response in page.responses("/accept")], ttl + 6)
        page.devtools.release()
        check(answers and answers[0] == 410,
              f"offers: the server answered the late accept 410 ({answers}), and the page says '{EXPIRED}'")
        check(page.shows(EXPIRED), f"offers: after the 410 the page still says '{EXPIRED}'")
        if shown:
            page.screen("offer-expired", must_show=EXPIRED)
        check(server.call("GET", f"/api/v1/orders/{order_id}", DISPATCHER)["status"] == "READY_FOR_PICKUP",
              "offers: the expired offer assigned nothing")
        dismiss(EXPIRED)

        # Taken: another rider accepts the same order first.
        order_id, _ = new_order(server, ref="TAKEN-1")
        page.allow(*status_noise(409))
        offers = offer(server, order_id, rider_id, other_id)
        need(page.wait_control(ACCEPT, 5), "the second offer")
        server.call("POST", f"/api/v1/rider/offers/{offer_for(offers, other_id)}/accept", other)
        tap_accept_if_shown(page)
        if page.wait_text(TAKEN, 8):
            page.screen("offer-taken", must_show=TAKEN)
        statuses = [response["status"] for response in page.responses("/accept")][1:]
        print(f"     (the page's accept was answered {statuses or 'never: the page knew first'})", flush=True)
        check(server.call("GET", f"/api/v1/orders/{order_id}", DISPATCHER)["assignedRiderId"] == other_id,
              "offers: the order stays with the rider who won it")
        dismiss(TAKEN)

        # Cancelled: the dispatcher cancels before the rider taps.
        order_id, _ = new_order(server, ref="CANCEL-1")
        offer(server, order_id, rider_id)
        need(page.wait_control(ACCEPT, 5), "the third offer")
        server.call("POST", f"/api/v1/orders/{order_id}/cancel", DISPATCHER, {"reason": "customer changed mind"})
        tap_accept_if_shown(page)
        if page.wait_text(CANCELLED, 8):
            page.screen("offer-cancelled", must_show=CANCELLED)
        statuses = [response["status"] for response in page.responses("/accept")][2:]
        print(f"     (the page's accept was answered {statuses or 'never: the page knew first'})", flush=True)
        dismiss(CANCELLED)

        # RDR-BR-001: the rider went offline elsewhere (the server says so) and taps Accept here.
        order_id, _ = new_order(server, ref="OFFLINE-1")
        page.allow(*status_noise(403))
        offer(server, order_id, rider_id)
        need(page.wait_control(ACCEPT, 5), "the fourth offer")
        server.call("PUT", "/api/v1/rider/availability", rider, {"status": "OFFLINE"})
        button = page.control(ACCEPT)
        if button is not None:
            page.press(button)
        page.wait_text(NOT_ONLINE, 8)
        page.allow()

    finally:
        page.close()


# ---------------------------------------------------------------------------------------------------------------
# 3 and 7: the far-away arrival question; the order cancelled while the rider is on it.

def far_arrival(server):
    rider_id, rider = rider_identity("Chloé Martin")
    order_id, task_id, _ = task_at(server, rider_id, rider, ["ARRIVED_AT_STORE", "PICKED_UP"])
    page = RiderPage(server, "far away", position=STORE)
    try:
        sign_in(page, rider, None, (AT_DESTINATION,))
        count = len(events(server, order_id))
        page.tap(AT_DESTINATION)
        need(page.wait_text(FAR_QUESTION, 5), "the far-away question")
        page.screen("arrival-far", must_show=FAR_QUESTION)
        page.tap("Cancel")
        wait("far away: Cancel closes the question", lambda: not page.shows(FAR_QUESTION), 5)
        time.sleep(1.5)
        check(len(events(server, order_id)) == count, "far away: Cancel sends nothing (the event log is unchanged)")
        check(page.queue_length() in (0, -1), "far away: Cancel leaves nothing queued")
        check(page.control(AT_DESTINATION) is not None, "far away: after Cancel the rider can still tap arrival")

        window = [time.time(), 0]
        page.tap(AT_DESTINATION)
        need(page.wait_text(FAR_QUESTION, 5), "the question again")
        page.tap("Confirm")
        window[1] = time.time()
        arrived = wait("far away: Confirm records the arrival",
                       lambda: [event for event in status_events(server, order_id)
                                if event["status"] == "ARRIVED_AT_DESTINATION"], 10)
        if arrived:
            event = arrived[0]
            check(event["geofenceOverride"] is True,
                  f"far away: the server recorded the confirmed override (geofenceOverride {event['geofenceOverride']})")
            check((event.get("geofenceDistanceM") or 0) > 500,
                  f"far away: the recorded distance is beyond the radius ({event.get('geofenceDistanceM')} m)")
            check(within(parse_time(event["occurredAt"]), window), "far away: occurredAt is the time of the taps")
        page.wait_text(ENTER_OTP, 10)

        # The dispatcher cancels while the rider is at the door: the page says so and goes home.
        server.call("POST", f"/api/v1/orders/{order_id}/cancel", DISPATCHER, {"reason": "customer cancelled"})
        if page.wait_text(CANCELLED, 10) or wait("far away: the page says the order was cancelled",
                                                 lambda: "cancel" in page.text().lower(), 1):
            page.screen("task-cancelled")
        wait("far away: after the cancellation the rider is back home",
             lambda: page.control(ENTER_OTP) is None and page.control(AT_DESTINATION) is None
             and (page.shows(WAITING) or page.control(GO_ONLINE) or page.control(GO_OFFLINE)), 15)
    finally:
        page.close()


# ---------------------------------------------------------------------------------------------------------------
# 4: two taps without a connection, the page reloaded offline, then back online.

def offline_taps(server):
    rider_id, rider = rider_identity("Dev Patel")
    order_id, task_id, _ = task_at(server, rider_id, rider, [])
    page = RiderPage(server, "offline", position=STORE)
    try:
        sign_in(page, rider, None, (AT_STORE,))
        controlled = wait("offline: the service worker controls the page",
                          lambda: page.driver.execute_script("return !!(navigator.serviceWorker && "
                                                             "navigator.serviceWorker.controller)"), 8)
        if not controlled:
            page.driver.refresh()
            need(page.wait_control(AT_STORE, 10), "the task after a reload")
            check(page.driver.execute_script("return !!navigator.serviceWorker.controller"),
                  "offline: the service worker controls the page after one reload")
        check(page.devtools.service_workers(), "offline: a service worker is running")

        page.allow(*OFFLINE_NOISE)
        page.devtools.set_offline(True)
        time.sleep(0.5)
        taps = {"ARRIVED_AT_STORE": page.tap(AT_STORE)}
        need(page.wait_control(PICKED_UP, 5), "'Picked Up' offline (the tap is kept, the screen goes on)")
        taps["PICKED_UP"] = page.tap(PICKED_UP)
        need(page.wait_text(RETRYING, 10), "the retrying note")
        check(page.queue_length() == 2, f"offline: both taps wait in the queue ({page.queue_length()})")
        page.screen("offline-retrying", must_show=RETRYING)

        page.driver.refresh()
        need(wait("offline: the page opens again without a connection",
                  lambda: page.control(AT_DESTINATION) is not None or page.shows(RETRYING), 15), "the offline reload")
        documents = [response for response in page.responses("/rider")
                     if response["url"].split("?")[0].rstrip("/").endswith("/rider")]
        check(documents and documents[-1].get("fromServiceWorker"),
              "offline: the reloaded page came from the service worker")
        check(page.queue_length() == 2, f"offline: the queue survived the reload ({page.queue_length()})")
        page.wait_text(RETRYING, 5)
        check(page.control(AT_DESTINATION) is not None, "offline: after the reload the task is where the rider left it")
        early = status_events(server, order_id)
        if not check(not early, "offline: nothing reached the server yet"):
            print(f"     (received {[(event['status'], event['receivedAt']) for event in early]}; the page's "
                  f"online/offline events and fetches {page.driver.execute_script('return sessionStorage.getItem(`__net`)')}; sessions "
                  f"{page.devtools.sessions}; status requests "
                  f"{[(m['params']['request']['method'], round(m['params']['wallTime'], 2)) for m in page.network if m.get('method') == 'Network.requestWillBeSent' and '/status' in m['params']['request']['url']]})",
                  flush=True)
        time.sleep(2)

        if page.devtools.leaks:
            print(f"     (the browser's offline emulation let {len(page.devtools.leaks)} request(s) through to the "
                  f"network layer, failed there: {page.devtools.leaks[:3]})", flush=True)
        online_at = time.time()
        page.devtools.set_offline(False)
        arrived = wait("offline: back online, both taps reach the server",
                       lambda: len(status_events(server, order_id)) >= 2, 15)
        print(f"     (replayed {time.time() - online_at:.1f} s after the connection returned)", flush=True)
        page.allow()
        if arrived:
            log = status_events(server, order_id)
            check([event["status"] for event in log] == ["ARRIVED_AT_STORE", "PICKED_UP"],
                  f"offline: in the order tapped, each once ({[event['status'] for event in log]})")
            for event in log:
                occurred = parse_time(event["occurredAt"])
                check(within(occurred, taps[event["status"]]),
                      f"offline: {event['status']} keeps its tap time ({event['occurredAt']})")
                check(parse_time(event["receivedAt"]) - occurred > 3,
                      f"offline: {event['status']} was received later ({event['receivedAt']})")
        wait("offline: the retrying note goes away", lambda: not page.shows(RETRYING), 10)
        check(page.queue_length() == 0, "offline: the queue is empty")
    finally:
        page.devtools.set_offline(False)
        page.close()


# ---------------------------------------------------------------------------------------------------------------
# 5: photo proof: a refused one, then a real 3000x2000 JPEG shrunk in the browser.

def make_jpeg(page, width=3000, height=2000):
    """A real JPEG made by chromium's own encoder (no imaging library needed), as a camera would give."""
    data = page.driver.execute_async_script("""
        const [width, height, done] = arguments;
        const canvas = document.createElement('canvas');
        canvas.width = width; canvas.height = height;
        const g = canvas.getContext('2d');
        const gradient = g.createLinearGradient(0, 0, width, height);
        gradient.addColorStop(0, '#3a6ea5'); gradient.addColorStop(1, '#f4a259');
        g.fillStyle = gradient; g.fillRect(0, 0, width, height);
        let seed = 7;
        const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
        for (let i = 0; i < 12000; i++) {
            g.fillStyle = `hsl(${next() * 360}, 60%, ${30 + next() * 40}%)`;
            g.fillRect(next() * width, next() * height, 4 + next() * 60, 4 + next() * 60);
        }
        g.fillStyle = '#111'; g.font = 'bold 160px sans-serif'; g.fillText('DOOR 12', 200, 400);
        canvas.toBlob((blob) => {
            const reader = new FileReader();
            reader.onload = () => done(reader.result.split(',')[1]);
            reader.readAsDataURL(blob);
        }, 'image/jpeg', 0.95);
    """, width, height)
    return base64.b64decode(data)


def choose_file(page, path):
    inputs = page.driver.find_elements(By.CSS_SELECTOR, "input[type=file]")
    need(inputs, "a file input for the photo")
    element = inputs[0]
    check(element.get_attribute("accept") and "image" in element.get_attribute("accept")
          and element.get_attribute("capture") == "environment",
          "photo: the input asks the camera for an image (accept=image/*, capture=environment)")
    try:
        element.send_keys(path)
    except Exception:
        # A hidden input (styled by its label) still takes files through DevTools, as a picked photo would.
        node = page.cdp("DOM.getDocument", {"depth": 0})
        found = page.cdp("DOM.querySelector", {"nodeId": node["root"]["nodeId"], "selector": "input[type=file]"})
        page.cdp("DOM.setFileInputFiles", {"files": [path], "nodeId": found["nodeId"]})


def photo_proof(server, workdir):
    rider_id, rider = rider_identity("Eva Novak")
    order_id, task_id, _ = task_at(server, rider_id, rider, ["ARRIVED_AT_STORE", "PICKED_UP",
                                                             "ARRIVED_AT_DESTINATION"], pod="PHOTO")
    page = RiderPage(server, "photo", position=HOME)
    try:
        sign_in(page, rider, None, (CAPTURE,))
        delivered = page.control(DELIVERED)
        check(delivered is None or not page.enabled(delivered), "photo: 'Delivered' is disabled before a proof")
        page.screen("proof-photo", must_show=CAPTURE)

        fake = os.path.join(workdir, "not-a-photo.jpg")
        with open(fake, "wb") as handle:
            handle.write(random.Random(5).randbytes(200_000))
        status, problem = post_photo(server, rider, task_id, open(fake, "rb").read(), "not-a-photo.jpg")
        check(status == 415, f"photo: the server refuses random bytes as a photo ({status})")
        page.allow(*status_noise(415))
        choose_file(page, fake)
        message = problem.get("detail") or problem.get("title", "")
        if not page.wait_text(message, 10):
            print(f"     (the page said: {page.text()[-300:]!r})", flush=True)
        else:
            page.screen("proof-photo-refused", must_show=message)
        page.allow()
        check(not [event for event in events(server, order_id) if event["type"] == "ProofOfDeliveryAccepted"],
              "photo: no proof was recorded for the refused file")
        check(page.queue_length() in (0, -1), "photo: the refused photo is not left in the queue to retry forever")

        big = make_jpeg(page)
        original = jpeg_size(big)
        check(original == (3000, 2000) and len(big) > 1_000_000,
              f"photo: a real JPEG to send, {original}, {len(big) / 1e6:.1f} MB")
        real = os.path.join(workdir, "door.jpg")
        with open(real, "wb") as handle:
            handle.write(big)
        uploads_before = len(page.requests("/pod", "POST"))
        choose_file(page, real)
        accepted = wait("photo: the server accepted the photo",
                        lambda: [event for event in events(server, order_id)
                                 if event["type"] == "ProofOfDeliveryAccepted"], 20)
        check(len(page.requests("/pod", "POST")) > uploads_before, "photo: the page uploaded it")
        if accepted:
            stored = fetch_bytes(server, f"/api/v1/pods/{accepted[0]['details']['podId']}/image", DISPATCHER)
            size = jpeg_size(stored)
            check(size is not None and max(size) <= 1600 and max(size) >= 800,
                  f"photo: the stored photo is a JPEG shrunk in the browser to {size}, {len(stored) / 1e3:.0f} kB")
        need(page.wait_control(DELIVERED, 10, enabled=True), "'Delivered' enabled after the photo")
        page.tap(DELIVERED)
        page.wait_text(COMPLETE, 10)
        wait("photo: the order is DELIVERED",
             lambda: server.call("GET", f"/api/v1/orders/{order_id}", DISPATCHER)["status"] == "DELIVERED", 10)
    finally:
        page.close()


# ---------------------------------------------------------------------------------------------------------------
# 6: the routing service down: the message, and the task buttons still work.

def routing_down(server):
    rider_id, rider = rider_identity("Femi Ade")
    order_id, task_id, _ = task_at(server, rider_id, rider, [])
    status, problem = None, {}
    try:
        server.call("GET", f"/api/v1/rider/tasks/{task_id}/route?from={STORE['lat']},{STORE['lon']}", rider,
                    expect=(503,))
        status = 503
    except SystemExit as error:
        problem = {"error": str(error)}
    check(status == 503, f"routing down: the server answers 503 NAVIGATION_UNAVAILABLE {problem}")
    page = RiderPage(server, "routing down", position=(STORE["lat"] + 0.003, STORE["lon"]))
    try:
        sign_in(page, rider, None, (TO_VENDOR,))
        page.allow(*status_noise(503))
        page.tap(TO_VENDOR)
        if page.wait_text(NAV_DOWN, 10):
            page.screen("navigation-unavailable", must_show=NAV_DOWN)
        page.allow()
        if page.control(AT_STORE) is None and page.control(EXIT_NAV) is not None:
            page.tap(EXIT_NAV)
        page.move(STORE)
        window = page.tap(AT_STORE)
        arrived = wait("routing down: the task buttons still work (ARRIVED_AT_STORE recorded)",
                       lambda: status_events(server, order_id), 10)
        if arrived:
            check(arrived[0]["status"] == "ARRIVED_AT_STORE" and within(parse_time(arrived[0]["occurredAt"]), window),
                  "routing down: it is the tapped status at the tap time")
        page.wait_control(PICKED_UP, 10)
    finally:
        page.close()


# ---------------------------------------------------------------------------------------------------------------
# 7: the server's answer lost, or a 5xx: the tap waits, nothing is lost, nothing is sent twice. A problem report.

def status_requests(page):
    page.drain()
    found = []
    for message in page.network:
        if message.get("method") == "Network.requestWillBeSent":
            request = message["params"]["request"]
            if "/status" in request["url"] and request["method"] == "PATCH":
                try:
                    found.append(json.loads(request.get("postData") or "{}"))
                except ValueError:
                    found.append({})
    return found


def flaky_server(server):
    rider_id, rider = rider_identity("Ines Roy")
    order_id, task_id, _ = task_at(server, rider_id, rider, [])
    page = RiderPage(server, "flaky server", position=STORE)
    try:
        sign_in(page, rider, None, (AT_STORE,))
        page.allow(*status_noise(503), r"ERR_CONNECTION_RESET", r"Failed to fetch")

        # The server records the tap but its answer never arrives: the page sends it again with the same eventId.
        page.devtools.intercept({"part": "/status", "stage": "Response", "action": "drop", "times": 1})
        page.tap(AT_STORE)
        wait("flaky server: after a lost answer the tap is sent again until it is answered",
             lambda: len(status_requests(page)) >= 2 and page.queue_length() == 0, 15, page=page)
        sent = status_requests(page)
        check(len({body.get("eventId") for body in sent}) == 1,
              f"flaky server: the resend has the same eventId ({len(sent)} sends)")
        log = status_events(server, order_id)
        check([event["status"] for event in log] == ["ARRIVED_AT_STORE"],
              f"flaky server: the server recorded it once ({[event['status'] for event in log]})")

        # A 503 in the server's place: the tap waits and goes once the server answers.
        page.devtools.intercept({"part": "/status", "stage": "Request", "action": 503, "times": 1})
        page.tap(PICKED_UP)
        wait("flaky server: after a 503 the tap is retried and recorded",
             lambda: len(status_events(server, order_id)) >= 2 and page.queue_length() == 0, 15, page=page)
        sent = status_requests(page)[len(sent):]
        check(len(sent) >= 2 and len({body.get("eventId") for body in sent}) == 1,
              f"flaky server: the retry after the 503 is the same tap ({len(sent)} sends)")
        log = status_events(server, order_id)
        check([event["status"] for event in log] == ["ARRIVED_AT_STORE", "PICKED_UP"],
              f"flaky server: nothing lost, nothing twice ({[event['status'] for event in log]})")
        page.devtools.release()
        page.allow()

        # Report a problem: the question, the answer, the server's record.
        need(page.wait_control(AT_DESTINATION, 10), "the task after pickup")
        page.tap(REPORT)
        need(page.wait_control("Customer unavailable", 5), "the choice of problems")
        page.screen("report-problem", must_show="Address not found")
        page.tap("Customer unavailable")
        confirm = page.wait_control("Send", 5, quiet=True)
        if confirm is not None:
            page.press(confirm)
        reported = wait("flaky server: the problem reaches the server",
                        lambda: [event for event in events(server, order_id)
                                 if event["type"] == "DeliveryIssueReported"], 10, page=page)
        if reported:
            check(reported[0]["details"].get("issueType") == "CUSTOMER_UNAVAILABLE",
                  f"flaky server: as 'Customer unavailable' ({reported[0]['details']})")
    finally:
        page.devtools.release()
        page.close()


# ---------------------------------------------------------------------------------------------------------------
# 7: bad tokens, a suspended rider, location refused.

def bad_input(server):
    page = RiderPage(server, "sign-in", position=STORE)
    try:
        expired_id = str(uuid.uuid4())
        page.allow(*status_noise(401))
        page.get("/rider#token=" + mint("rider", expired_id, name="Old Token", ttl=-7200))
        need(page.wait_control(SIGN_IN, 10), "sign-in after an expired token")
        wait("sign-in: an expired token gives the reason", lambda: "expired" in page.text().lower(), 5)
        check("token" not in page.driver.current_url, "sign-in: the refused token is not left in the address bar")
        page.screen("sign-in-expired")

        page.allow(*status_noise(401, 403))
        customer = mint("customer", str(uuid.uuid4()))
        box = need(wait("sign-in: a token box", lambda: otp_box(page), 5), "the token box")
        box.clear()
        box.send_keys(customer)
        page.tap(SIGN_IN)
        wait("sign-in: a customer's token is refused with a reason", lambda: page.shows("rider")
             and page.control(SIGN_IN) is not None and page.control(GO_ONLINE) is None, 8)
        page.screen("sign-in-refused")

        box = need(otp_box(page), "the token box again")
        box.clear()
        box.send_keys("not-a-token")
        page.tap(SIGN_IN)
        wait("sign-in: nonsense is refused, not a blank page",
             lambda: page.control(SIGN_IN) is not None and len(page.text().strip()) > 20, 8)

        # A rider suspended while signed in is sent back to sign-in with the reason.
        rider_id, rider = rider_identity("Gus Lee")
        page.allow()
        sign_in(page, rider, "Gus Lee")
        server.call("POST", f"/api/v1/riders/{rider_id}/suspend", ADMIN)
        page.allow(*status_noise(401, 403))
        # The server closes a suspended rider's stream within a second (4403), so the page may go back to sign-in
        # on its own before the tap lands; either way is right, the tap is only a person trying to carry on.
        try:
            online = page.control(GO_ONLINE)
            if online is not None:
                page.press(online)
        except (ElementNotInteractableException, StaleElementReferenceException):
            pass
        wait("sign-in: a suspended rider is sent back to sign-in with the reason",
             lambda: page.control(SIGN_IN) is not None and "suspended" in page.text().lower(), 10)
        check(len(page.text().strip()) > 20 and not re.search(r"\bat \S+ \(|\.js:\d+:\d+|TypeError|undefined",
                                                                 page.text()),
              "sign-in: no stack trace, no blank page")
        page.allow()
    finally:
        page.close()

    # Location refused: the page says how to allow it; the task still works.
    rider_id, rider = rider_identity("Hana Sato")
    task_at(server, rider_id, rider, [])
    page = RiderPage(server, "no location", permission="denied")
    try:
        sign_in(page, rider, None, (AT_STORE, TO_VENDOR))
        control = page.control(TO_VENDOR)
        if control is not None:
            page.press(control)
        located = wait("no location: a readable message says location is refused and how to allow it",
                       lambda: re.search(r"location", page.text(), re.I)
                       and re.search(r"allow|permission|settings", page.text(), re.I), 10)
        if located:
            page.screen("location-refused")
    finally:
        page.close()


# ---------------------------------------------------------------------------------------------------------------

def scenario(name, function, *args):
    started = time.time()
    print(f"\n== {name}", flush=True)
    try:
        function(*args)
    except Abort as stop:
        check(False, f"{name}: stopped, {stop} did not come")
    except Exception as error:
        print("".join(line for line in traceback.format_exc().splitlines(True) if not line.startswith("#")),
              flush=True)
        check(False, f"{name}: stopped by {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
    print(f"   ({name}: {time.time() - started:.0f} s)", flush=True)


def main():
    started = time.time()
    # A stuck run prints where every thread was and ends (CI stops it at 15 minutes).
    faulthandler.dump_traceback_later(720, exit=True)
    os.makedirs(ARTIFACTS, exist_ok=True)
    import tempfile
    workdir = tempfile.mkdtemp(prefix="rider-test-")
    ttl = 3
    servers = {}

    def start(key, **settings):
        servers[key] = Server(**settings)

    threads = [threading.Thread(target=start, args=("main",)),
               threading.Thread(target=start, args=("short",), kwargs={
                   "LOGISTICS_OFFER_TTL_SECONDS": str(ttl), "LOGISTICS_ROUTING_PROVIDER": "external",
                   "LOGISTICS_ROUTING_URL": "http://127.0.0.1:9"})]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        if "main" not in servers or "short" not in servers:
            raise SystemExit("a server did not start")
        main_server, short = servers["main"], servers["short"]
        # `rider_app_test.py offers photo` runs only those scenarios.
        chosen = set(sys.argv[1:])

        def run(name, *args):
            if not chosen or name.split()[0] in chosen:
                scenario(name, *args)

        # Two phones at a time: the scenarios on the two servers run side by side.
        second = threading.Thread(target=lambda: [
            run("offers", offer_failures, short, ttl),
            run("routing down", routing_down, short),
            run("bad input", bad_input, short),
            run("flaky server", flaky_server, short),
        ])
        second.start()
        run("whole delivery", whole_delivery, main_server)
        run("far away", far_arrival, main_server)
        run("offline", offline_taps, main_server)
        run("photo", photo_proof, main_server, workdir)
        second.join()
    finally:
        for server in servers.values():
            server.stop()
        import shutil
        shutil.rmtree(workdir, ignore_errors=True)
    elapsed = time.time() - started
    print(f"\nrider app: {len(failures)} check(s) failed in {elapsed:.0f} s" if failures
          else f"\nrider app: all checks passed in {elapsed:.0f} s", flush=True)
    for failure in failures:
        print("  FAIL " + failure, flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
