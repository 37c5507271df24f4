"""The customer's tracking page in a real browser (Debian's chromium driven by selenium), against the real server.

Run after `swift build`: python3 Tests/Browser/tracking_page_test.py. Screenshots go to .ci/artifacts/.
Only localhost is contacted; the browser is the system chromium (nothing is downloaded).
"""

import faulthandler
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

from selenium.webdriver.common.by import By

# The harness is shared with the rider app's test; SECRET and the rest stay reachable here for the benchmarks.
from browser_support import (ARTIFACTS, BINARY, HOME, ROOT, SECRET, STORE, Server, browser, canvas_ink,  # noqa: F401
                             check, check_contrast, failures, now, requested_urls, wait_for)
from tracking_delivered import by_words, photo_delivery, rating_once, rider_marker, route


def ready(server, customer_name, phone, ref=None, rider_name=None, pod_type="OTP"):
    """An order from the Café de Paris ready for pickup, and an online rider: the start of both scenarios."""
    dispatcher = server.token("dispatcher", str(uuid.uuid4()))
    rider_id, customer_id = str(uuid.uuid4()), str(uuid.uuid4())
    rider = server.token("rider", rider_id, name=rider_name)
    customer = server.token("customer", customer_id)
    body = {"podType": pod_type, "vendor": {"name": "Café de Paris", "address": "Place du Casino", "location": STORE},
            "customer": {"id": customer_id, "name": customer_name, "phone": phone,
                         "address": "Avenue de Fontvieille", "location": HOME}}
    if ref:
        body["externalRef"] = ref
    order_id = server.call("POST", "/api/v1/orders", dispatcher, body)["orderId"]
    server.call("POST", f"/api/v1/orders/{order_id}/ready", dispatcher)
    server.call("PUT", "/api/v1/rider/availability", rider, {"status": "ONLINE"})
    return dispatcher, order_id, rider_id, rider, customer


def in_transit(server):
    """An order picked up by a rider, with a first fix: what a customer follows."""
    dispatcher, order_id, rider_id, rider, customer = ready(
        server, "Priya Shah", "+377 93 15 00 01", rider_name="Marc Dubois")
    offers = server.call("POST", f"/api/v1/orders/{order_id}/offers", dispatcher, {"riderIds": [rider_id]})
    task = server.call("POST", f"/api/v1/rider/offers/{offers['offers'][0]['offerId']}/accept", rider)
    for status in ["ARRIVED_AT_STORE", "PICKED_UP"]:
        server.call("PATCH", f"/api/v1/rider/tasks/{task['taskId']}/status", rider, {
            "status": status, "eventId": str(uuid.uuid4()), "occurredAt": now(),
            "location": dict(STORE, accuracyM=5)})
    fix(server, rider, 43.7380, 7.4262)
    return order_id, task["taskId"], rider, customer


def fix(server, rider, lat, lon, heading=None):
    position = {"lat": lat, "lon": lon, "accuracyM": 5, "speedMps": 8, "recordedAt": now()}
    if heading is not None:
        position["headingDeg"] = heading
    server.call("POST", "/api/v1/rider/locations", rider, {"fixes": [position]})


def main():
    # The whole run takes about a minute; a stuck one prints where every thread was and ends (CI stops it at 15).
    faulthandler.dump_traceback_later(600, exit=True)
    os.makedirs(ARTIFACTS, exist_ok=True)
    server = Server(LOGISTICS_TRACKING_STALE_SECONDS="3")
    try:
        order_id, task_id, rider, customer = in_transit(server)
        link = server.call("POST", f"/api/v1/orders/{order_id}/tracking-links", customer)
        page = link["url"]

        for width, height, name in [(360, 740, "phone"), (1280, 800, "desktop")]:
            driver = browser(width, height)
            try:
                driver.get(page)
                wait_for(f"{name}: the map is drawn", lambda: canvas_ink(driver)[0] > 2000)
                wait_for(f"{name}: the status says the order is on its way",
                         lambda: driver.find_element(By.ID, "status").text == "On its way")
                wait_for(f"{name}: the ETA and the distance are shown",
                         lambda: "min" in driver.find_element(By.ID, "eta").text
                         and "away" in driver.find_element(By.ID, "eta").text)
                check(driver.find_element(By.ID, "rider").text == "Your rider: Marc",
                      f"{name}: the rider's first name is shown")
                check(driver.find_element(By.CLASS_NAME, "attribution").text == "© OpenStreetMap contributors",
                      f"{name}: the OpenStreetMap attribution is shown")
                check_contrast(driver, f"{name}")
                driver.save_screenshot(os.path.join(ARTIFACTS, f"tracking-{name}-{width}x{height}.png"))
            finally:
                logs = driver.get_log("browser")
                urls = requested_urls(driver)
                driver.quit()
            origin = server.base.replace("http://", "")
            foreign = [url for url in urls if origin not in url and not url.startswith("data:")]
            check(not foreign, f"{name}: no request leaves the page's origin ({foreign[:3]})")
            check(any("/map/tiles/" in url for url in urls), f"{name}: the map came from the server's own tiles")
            errors = [entry["message"] for entry in logs if entry["level"] == "SEVERE"]
            check(not errors, f"{name}: no errors or CSP violations in the console ({errors[:3]})")

        driver = browser(360, 740)
        try:
            driver.get(page)
            wait_for("the map is drawn", lambda: canvas_ink(driver)[0] > 2000)
            code = server.call("GET", f"/api/v1/customer/orders/{order_id}", customer)["deliveryOtp"]
            check(driver.find_element(By.ID, "delivery-code").text == f"Share code {code} with your rider",
                  "in transit: the link's holder is shown the delivery code")
            wait_for("in transit: the road left to the door is drawn as a line",
                     lambda: route(driver)[0].get("points", 0) >= 2 and route(driver)[1] > 200)
            time.sleep(1.5)
            far, far_pixels = route(driver)
            before = canvas_ink(driver)[1]
            driver.save_screenshot(os.path.join(ARTIFACTS, "tracking-route-far-360x740.png"))
            fix(server, rider, 43.7352, 7.4225, heading=225)
            wait_for("the rider marker moves after a fix", lambda: canvas_ink(driver)[1] != before, timeout=10)
            wait_for("the line shortens as the rider moves, in the page and on the canvas",
                     lambda: route(driver)[0]["metres"] < far["metres"] - 100 and route(driver)[1] < far_pixels * 0.8)
            wait_for("the rider's arrow turns to the phone's heading", lambda: route(driver)[0]["heading"] == 225)
            near, near_pixels = route(driver)
            print(f"     (line {far['metres']:.0f} m, {far_pixels} px -> {near['metres']:.0f} m, {near_pixels} px)",
                  flush=True)
            time.sleep(1.2)
            turned = rider_marker(driver)
            driver.save_screenshot(os.path.join(ARTIFACTS, "tracking-route-near-360x740.png"))
            # A fix that did not move is passed on once 5 s have gone by: the arrow turns where the rider stands.
            time.sleep(5.2)
            fix(server, rider, 43.7352, 7.4225, heading=45)
            wait_for("the arrow turns again on the spot", lambda: route(driver)[0]["heading"] == 45, timeout=10)
            time.sleep(0.5)
            check(rider_marker(driver) not in (None, turned), "the marker is drawn turned, not only remembered")
            driver.save_screenshot(os.path.join(ARTIFACTS, "tracking-heading-45-360x740.png"))

            # No fix for the test's stale threshold (3 s instead of 15): the page shows when the rider was last seen.
            silent = time.time()
            wait_for("'Last updated' appears when the rider goes silent",
                     lambda: driver.find_element(By.ID, "updated").text.startswith("Last updated"), timeout=15)
            print(f"     (shown {time.time() - silent:.1f} s after the last fix)", flush=True)
            check_contrast(driver, "stale")
            driver.save_screenshot(os.path.join(ARTIFACTS, "tracking-stale-360x740.png"))

            revoked_link(server, order_id, customer)

            view = server.call("GET", f"/api/v1/customer/orders/{order_id}", customer)
            server.call("PATCH", f"/api/v1/rider/tasks/{task_id}/status", rider, {
                "status": "ARRIVED_AT_DESTINATION", "eventId": str(uuid.uuid4()), "occurredAt": now(),
                "location": dict(HOME, accuracyM=5)})
            # A rider waiting at the door sends no fixes: the page says they are there, not when they were last seen.
            wait_for("at the door: the status says the rider has arrived",
                     lambda: "arrived" in driver.find_element(By.ID, "status").text.lower())
            time.sleep(4)
            check(not driver.find_element(By.ID, "updated").is_displayed(),
                  "at the door, past the stale threshold: no 'Last updated' warning")
            check(driver.find_element(By.ID, "eta").text == "",
                  "at the door: no 'Arriving in about …' beside 'Your rider has arrived!'")
            server.call("POST", f"/api/v1/rider/tasks/{task_id}/pod", rider, {
                "type": "OTP", "value": view["deliveryOtp"], "capturedAt": now(), "location": dict(HOME, accuracyM=5)})
            server.call("PATCH", f"/api/v1/rider/tasks/{task_id}/status", rider, {
                "status": "DELIVERED", "eventId": str(uuid.uuid4()), "occurredAt": now(),
                "location": dict(HOME, accuracyM=5)})
            wait_for("after DELIVERED the map is gone",
                     lambda: not driver.find_elements(By.ID, "map-box"))
            wait_for("the final status shows", lambda: driver.find_element(By.ID, "status").text == "Delivered")
            wait_for("the page says when it was delivered, in the 24-hour clock of the customer's texts",
                     lambda: re.fullmatch(r"Delivered at [0-2]\d:[0-5]\d", driver.find_element(By.ID, "ended-at").text))
            wait_for("after delivery the open page shows the proof: 'Code confirmed'",
                     lambda: by_words(driver, "p", "Code confirmed") is not None)
            check(not driver.find_elements(By.ID, "delivery-code"), "after delivery the code is gone")
            driver.save_screenshot(os.path.join(ARTIFACTS, "tracking-delivered-360x740.png"))
            events = []
            wait_for("the tracking socket is closed after the end",
                     lambda: events.extend(json.loads(entry["message"])["message"].get("method")
                                           for entry in driver.get_log("performance"))
                     or "Network.webSocketClosed" in events, timeout=5)

            check_contrast(driver, "delivered")
            rating_once(driver, page)
            # Opened again later: the outcome, when, and from which store, without the live page.
            driver.get(page)
            ended = driver.find_element(By.TAG_NAME, "main").text
            check("This delivery has ended" in ended and re.search(r"Delivered at [0-2]\d:[0-5]\d", ended)
                  and "Café de Paris" in ended and "Your rider: Marc" in ended,
                  f"an ended link says how, when (24-hour clock), the store and who brought it ({ended!r})")
            check("Code confirmed" in ended and "Your rating: 4 of 5" in ended and not driver.find_elements(
                By.ID, "rating"), f"opened again: the proof and the rating given, no form ({ended!r})")
            driver.save_screenshot(os.path.join(ARTIFACTS, "tracking-ended-360x740.png"))
            driver.get(server.base + "/track/trk_not-a-real-link")
            check("This tracking link does not work" in driver.page_source, "an unknown link shows a readable HTML page")
            check_contrast(driver, "unknown link")
        finally:
            driver.quit()
        before_pickup(server)
        photo_delivery(server, browser, ready)
    finally:
        server.stop()
    raster_tiles()
    demo()
    demo_tls()
    if failures:
        print(f"{len(failures)} browser check(s) failed", flush=True)
        sys.exit(1)
    print("browser checks passed", flush=True)


# The road colours of the riders' and dispatchers' map (map.js STYLE), which read as traffic to a customer.
COLOURED_ROADS = """
const canvas = document.getElementById('map');
const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
const colours = [[192, 86, 60], [208, 138, 60], [201, 164, 73]];
let count = 0;
for (let i = 0; i < data.length; i += 4) {
  if (colours.some(([r, g, b]) => Math.abs(data[i] - r) < 10 && Math.abs(data[i + 1] - g) < 10
      && Math.abs(data[i + 2] - b) < 10)) count++;
}
return count;
"""


def before_pickup(server):
    """A link opened before pickup: the status in words, the store and the reference, no empty map; the map comes
    when the rider has the parcel, with grey roads (no colours a customer would read as traffic)."""
    dispatcher, order_id, rider_id, rider, customer = ready(
        server, "Lena Weber", "+377 93 15 00 02", ref="EARLY-7", rider_name="Marc Dubois")
    link = server.call("POST", f"/api/v1/orders/{order_id}/tracking-links", customer)
    driver = browser(360, 740)
    try:
        driver.get(link["url"])
        wait_for("before pickup: the status in words",
                 lambda: driver.find_element(By.ID, "status").text
                 == "Your order is ready; a rider will pick it up soon")
        text = driver.find_element(By.TAG_NAME, "main").text
        check("Order EARLY-7 from Café de Paris" in text, f"before pickup: the reference and the store ({text!r})")
        check(not driver.find_element(By.ID, "map-box").is_displayed(), "before pickup: no empty map box")
        check(driver.find_element(By.ID, "map-later").is_displayed(), "before pickup: says when the map comes")
        check(not driver.find_elements(By.ID, "delivery-code"), "before pickup: no delivery code yet")
        check_contrast(driver, "before pickup")
        driver.save_screenshot(os.path.join(ARTIFACTS, "tracking-before-pickup-360x740.png"))

        offers = server.call("POST", f"/api/v1/orders/{order_id}/offers", dispatcher, {"riderIds": [rider_id]})
        task = server.call("POST", f"/api/v1/rider/offers/{offers['offers'][0]['offerId']}/accept", rider)
        wait_for("before pickup: a rider on the way to the store is said in words",
                 lambda: driver.find_element(By.ID, "status").text
                 == "A rider is on the way to Café de Paris to pick up your order", timeout=20)
        for status in ["ARRIVED_AT_STORE", "PICKED_UP"]:
            server.call("PATCH", f"/api/v1/rider/tasks/{task['taskId']}/status", rider, {
                "status": status, "eventId": str(uuid.uuid4()), "occurredAt": now(),
                "location": dict(STORE, accuracyM=5)})
        fix(server, rider, 43.7380, 7.4262)
        wait_for("after pickup the open page shows the map by itself (it asks again every 15 s)",
                 lambda: driver.find_element(By.ID, "map-box").is_displayed()
                 and driver.find_element(By.ID, "status").text == "On its way", timeout=25)
        wait_for("the map is drawn", lambda: canvas_ink(driver)[0] > 2000)
        wait_for("after pickup: the delivery code is shown", lambda: driver.find_element(
            By.ID, "delivery-code").text.startswith("Share code "))
        time.sleep(1)
        coloured = driver.execute_script(COLOURED_ROADS)
        check(coloured == 0, f"the customer's map has no roads in traffic-like colours ({coloured} pixels)")
        driver.save_screenshot(os.path.join(ARTIFACTS, "tracking-after-pickup-360x740.png"))
    finally:
        driver.quit()


def revoked_link(server, order_id, customer):
    """A second link, open on a phone, is revoked: the page says so within seconds and stops reconnecting."""
    second = server.call("POST", f"/api/v1/orders/{order_id}/tracking-links", customer)
    driver = browser(360, 740)
    try:
        driver.get(second["url"])
        wait_for("a second link's page follows the order",
                 lambda: driver.find_element(By.ID, "status").text == "On its way")
        server.call("DELETE", f"/api/v1/orders/{order_id}/tracking-links/{second['linkId']}", customer,
                    expect=(204,))
        wait_for("a revoked link's open page says the link no longer works",
                 lambda: driver.find_element(By.ID, "status").text == "This tracking link does not work", timeout=5)
        driver.save_screenshot(os.path.join(ARTIFACTS, "tracking-revoked-360x740.png"))
        driver.get(second["url"])
        check("This tracking link does not work" in driver.page_source, "a revoked link opened again is refused")
    finally:
        driver.quit()


def demo():
    """`logistics demo` as a person runs it: its dispatcher link shows the demo's riders, its tracking link a map."""
    import signal
    directory = tempfile.mkdtemp(prefix="logistics-demo-")
    env = dict(os.environ)
    env.pop("DATABASE_URL", None)
    process = subprocess.Popen([BINARY, "demo", "--port", "0", "--data-dir", directory, "--riders", "2"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    dispatch_link = tracking_link = rider_link = None
    try:
        deadline = time.time() + 180
        while time.time() < deadline and not (dispatch_link and tracking_link and rider_link):
            line = process.stdout.readline()
            if not line:
                break
            if "Dispatcher's live map in a browser:" in line:
                dispatch_link = line.split(": ", 1)[1].strip()
            if "the customer's tracking page):" in line:
                tracking_link = line.split("): ", 1)[1].strip()
            if "in the rider app" in line and "/rider#token=" in line:
                rider_link = line.rsplit(": ", 1)[1].strip()
        check(dispatch_link and tracking_link and rider_link,
              "demo: prints the dispatcher's, a tracking page's and the rider app's links")
        if not (dispatch_link and tracking_link and rider_link):
            return
        threading_drain(process)
        driver = browser(1280, 800)
        try:
            driver.get(dispatch_link)
            wait_for("demo: the dispatcher's map shows the demo's riders",
                     lambda: int(driver.find_element(By.ID, "rider-count").text) >= 3, timeout=30)
            wait_for("demo: the demo's orders are listed",
                     lambda: len(driver.find_elements(By.CSS_SELECTOR, "#orders button")) >= 3)
            driver.get(tracking_link)
            wait_for("demo: the tracking link shows a map", lambda: canvas_ink(driver)[0] > 2000)
            wait_for("demo: the order is on its way",
                     lambda: driver.find_element(By.ID, "status").text in ("On its way", "Your rider has arrived!"))
            demo_rider_app(driver, rider_link)
        finally:
            driver.quit()
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(directory, ignore_errors=True)


def demo_tls():
    """`logistics demo --tls-self-signed`: HTTPS with a certificate of its own that names this machine, the warning
    a person clicks through explained, and the demo's own riders calling over it (a delivery code read back)."""
    import signal
    import ssl
    import urllib.request
    directory = tempfile.mkdtemp(prefix="logistics-demo-tls-")
    env = dict(os.environ)
    env.pop("DATABASE_URL", None)
    process = subprocess.Popen([BINARY, "demo", "--port", "0", "--data-dir", directory, "--riders", "0",
                                "--tls-self-signed"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    lines = []
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not any("Press Ctrl-C" in line for line in lines):
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
        text = "".join(lines)
        base = next((line.split("listening on ", 1)[1].strip() for line in lines if "listening on https://" in line),
                    None)
        check(base is not None, "demo TLS: it listens on https")
        check("not private" in text and "Advanced" in text, "demo TLS: the one warning to click through is explained")
        check("DELIVERY CODE" in text, "demo TLS: its own clients call it over HTTPS (a delivery code was read)")
        if base:
            context = ssl.create_default_context(cafile=os.path.join(directory, "demo-tls", "certificate.pem"))
            with urllib.request.urlopen(base + "/rider", context=context, timeout=10) as response:
                check(response.status == 200, "demo TLS: the rider app is served over HTTPS with the demo's certificate")
        threading_drain(process)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(directory, ignore_errors=True)


def demo_rider_app(driver, link):
    """The demo's rider left for a person: online, an order is offered to them, they accept it and can drive it."""
    def button(words):
        found = driver.find_elements(By.XPATH, f"//button[normalize-space(.)='{words}']")
        return next((element for element in found if element.is_displayed() and element.is_enabled()), None)

    driver.get(link)
    wait_for("demo: the rider app signs in from its link and offers Go Online", lambda: button("Go Online"))
    button("Go Online").click()
    wait_for("demo: an order is offered to the demo's person rider", lambda: button("Accept Task"), timeout=30)
    button("Accept Task").click()
    wait_for("demo: the accepted order's task screen", lambda: button("Arrived at Store"), timeout=15)
    wait_for("demo: navigation to the store", lambda: button("Navigate to Store"))
    button("Navigate to Store").click()
    wait_for("demo: the navigation screen offers Simulate my drive (the demo only)", lambda: any(
        element.is_displayed() for element in driver.find_elements(
            By.XPATH, "//label[contains(normalize-space(.), 'Simulate my drive')]")))


def threading_drain(process):
    """Keeps reading the demo's progress lines so its output pipe never fills."""
    import threading
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()


def raster_tiles():
    """An operator's raster tile server (LOGISTICS_TILE_URL): the page draws its tiles, its CSP lets them in."""
    import http.server
    import threading
    import zlib

    def png(width, height, rgb):
        rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
        chunk = lambda kind, data: (len(data).to_bytes(4, "big") + kind + data
                                    + zlib.crc32(kind + data).to_bytes(4, "big"))
        header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")

    tile = png(256, 256, (200, 220, 190))
    served = []

    class Tiles(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            served.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(tile)))
            self.end_headers()
            self.wfile.write(tile)

        def log_message(self, *args):
            pass

    tiles = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Tiles)
    threading.Thread(target=tiles.serve_forever, daemon=True).start()
    tile_origin = f"http://127.0.0.1:{tiles.server_address[1]}"
    server = Server(LOGISTICS_TILE_URL=tile_origin + "/{z}/{x}/{y}.png")
    try:
        order_id, _, _, customer = in_transit(server)
        link = server.call("POST", f"/api/v1/orders/{order_id}/tracking-links", customer)
        driver = browser(360, 740)
        try:
            driver.get(link["url"])
            wait_for("raster: the page fetches the operator's tiles", lambda: len(served) >= 4)
            wait_for("raster: the status shows", lambda: driver.find_element(By.ID, "status").text == "On its way")
            time.sleep(1)
            driver.save_screenshot(os.path.join(ARTIFACTS, "tracking-raster-tiles-360x740.png"))
        finally:
            logs = driver.get_log("browser")
            urls = requested_urls(driver)
            driver.quit()
        origin = server.base.replace("http://", "")
        foreign = [url for url in urls if origin not in url and not url.startswith(tile_origin)
                   and not url.startswith("data:")]
        check(not foreign, f"raster: nothing but this origin and the tile server is contacted ({foreign[:3]})")
        check(not any("/map/tiles/" in url for url in urls), "raster: the server's own tiles are not fetched")
        check(all(path.endswith(".png") and path.count("/") == 3 for path in served),
              f"raster: tile requests follow the template ({served[:2]})")
        errors = [entry["message"] for entry in logs if entry["level"] == "SEVERE"]
        check(not errors, f"raster: no errors or CSP violations in the console ({errors[:3]})")
    finally:
        server.stop()
        tiles.shutdown()


if __name__ == "__main__":
    main()
