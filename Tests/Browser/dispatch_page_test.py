"""A dispatcher's shift on the dispatcher's page, in a real browser (Debian's chromium driven by selenium), against
the real server, at a phone's 360×740 and a desktop's 1280×800.

Run after `swift build`: python3 Tests/Browser/dispatch_page_test.py. Screenshots go to .ci/artifacts/dispatch-*.png.
The page is used as a person uses it: controls are found by their words, the map is tapped where a marker is; the
riders are played through the API. Offers live 6 s here (LOGISTICS_OFFER_TTL_SECONDS) so one can be seen to expire.
Only localhost is contacted; the browser is the system chromium (nothing is downloaded).
"""

import faulthandler
import os
import sys
import time
import urllib.error
import urllib.request
import uuid
import zlib

from selenium.common.exceptions import ElementClickInterceptedException, StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from dispatch_consistency import consistency
from dispatch_people import people_tab
from dispatch_renewal import stays_signed_in
from dispatch_sign_in import phone_sign_in
from browser_support import (ARTIFACTS, HOME, STORE, Server, browser, canvas_ink, check, check_contrast, failures,
                             now, requested_urls, wait_for)
from rider_app.geometry import decode_polyline, resample

OFFER_TTL = 6
PATH_BLUE = """
    const canvas = document.getElementById('map');
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let count = 0;  // the path's and the trail's colour, #1a73e8 (traffic unknown)
    for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i] - 26) + Math.abs(data[i + 1] - 115) + Math.abs(data[i + 2] - 232) < 30) count++;
    }
    return count;"""


# ---- The page as a person sees it: controls by their words.

def literal(text):
    """An XPath string literal for any text."""
    if "'" not in text:
        return f"'{text}'"
    return "concat(" + ", \"'\", ".join(f"'{part}'" for part in text.split("'")) + ")"


def visible(elements):
    for element in elements:
        try:
            if element.is_displayed() and element.is_enabled():
                return element
        except StaleElementReferenceException:
            continue
    return None


def control(driver, words, tag="button"):
    """The visible control whose words are exactly `words`."""
    return visible(driver.find_elements(By.XPATH, f"//{tag}[normalize-space(.)={literal(words)}]"))


def control_with(driver, words, tag="button"):
    """The visible control whose words contain `words`."""
    return visible(driver.find_elements(By.XPATH, f"//{tag}[contains(normalize-space(.), {literal(words)})]"))


def field(driver, label):
    """The input, select or text area a visible label with these words names."""
    for element in driver.find_elements(By.XPATH, f"//label[normalize-space(.)={literal(label)}]"):
        if element.is_displayed():
            target = element.get_attribute("for")
            return driver.find_element(By.ID, target) if target else element.find_element(By.TAG_NAME, "input")
    return None


def tap(driver, element):
    """Scrolls the control to the middle of the screen (clear of the sticky tabs), waits for any smooth scroll the
    page started to settle, and taps it."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    last = None
    for _ in range(20):
        time.sleep(0.05)
        place = driver.execute_script("const box = arguments[0].getBoundingClientRect(); return [box.x, box.y]",
                                      element)
        if place == last:
            break
        last = place
    element.click()


def tap_found(driver, find, what):
    """Taps what `find` finds, looking again if the page redrew it in between (lists update live)."""
    deadline = time.time() + 20
    while True:
        try:
            element = find()
            if element is not None:
                tap(driver, element)
                print("ok   " + what, flush=True)
                return
        except (StaleElementReferenceException, ElementClickInterceptedException):
            pass
        if time.time() > deadline:
            check(False, what + " (timed out)")
            raise AssertionError(f"could not tap: {what}")
        time.sleep(0.1)


def tap_words(driver, words, tag="button", what=None):
    tap_found(driver, lambda: control(driver, words, tag), what or f"'{words}' can be tapped")


def tap_containing(driver, words, tag="button", what=None):
    tap_found(driver, lambda: control_with(driver, words, tag), what or f"'{words}' can be tapped")


def type_into(driver, label, text):
    element = field(driver, label)
    if not check(element is not None, f"a field labelled '{label}'"):
        raise AssertionError(f"no field '{label}'")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.clear()
    element.send_keys(text)


def text_of(driver, element_id):
    try:
        return driver.find_element(By.ID, element_id).text
    except Exception:
        return ""


def no_sideways_scroll(driver, what):
    width = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    return check(width[0] <= width[1], f"{what}: nothing sticks out sideways ({width[0]} px in {width[1]} px)")


def shot(driver, name, step):
    width, height = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.save_screenshot(os.path.join(ARTIFACTS, f"dispatch-{name}-{step}-{width}x{height}.png"))


# ---- The riders and the earlier part of the day, played through the API.

def png(width, height):
    """A real PNG: a gradient, so the proof photo shows on the page as something."""
    rows = b"".join(b"\x00" + b"".join(bytes((x * 255 // width, y * 255 // height, 160)) for x in range(width))
                    for y in range(height))

    def chunk(kind, data):
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def upload_photo(server, rider, task_id):
    boundary = "----dispatch" + uuid.uuid4().hex[:12]
    fields = {"capturedAt": now(), "lat": str(HOME["lat"]), "lon": str(HOME["lon"]), "accuracyM": "6"}
    body = b"".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n".encode()
                    for name, value in fields.items())
    body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"door.png\"\r\n"
             f"Content-Type: image/png\r\n\r\n").encode() + png(96, 64) + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(f"{server.base}/api/v1/rider/tasks/{task_id}/pod", data=body, method="POST")
    request.add_header("Authorization", "Bearer " + rider)
    request.add_header("Content-Type", f"multipart/form-data; boundary={boundary}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        raise AssertionError(f"photo upload answered {error.code}: {error.read().decode()}")


class Rider:
    def __init__(self, server, name, lat=None, lon=None, online=True):
        self.server = server
        self.name = name
        self.id = str(uuid.uuid4())
        self.token = server.token("rider", self.id, name=name)
        server.call("GET", "/api/v1/rider/me", self.token)
        if online:
            server.call("PUT", "/api/v1/rider/availability", self.token, {"status": "ONLINE"})
        if lat is not None:
            self.fix(lat, lon)

    def fix(self, lat, lon):
        self.server.call("POST", "/api/v1/rider/locations", self.token, {"fixes": [
            {"lat": lat, "lon": lon, "accuracyM": 5, "speedMps": 5, "headingDeg": 90, "recordedAt": now()}]})

    def offer_for(self, order_id):
        offers = self.server.call("GET", "/api/v1/rider/offers", self.token)["offers"]
        return next((offer for offer in offers if offer["orderId"] == order_id), None)

    def accept(self, order_id):
        offer = self.offer_for(order_id)
        if offer is None:
            raise AssertionError(f"{self.name} has no offer for {order_id}")
        return self.server.call("POST", f"/api/v1/rider/offers/{offer['offerId']}/accept", self.token)["taskId"]

    def status(self, task_id, status, place):
        self.server.call("PATCH", f"/api/v1/rider/tasks/{task_id}/status", self.token, {
            "status": status, "eventId": str(uuid.uuid4()), "occurredAt": now(), "location": dict(place, accuracyM=5)})

    def drive(self, dispatcher):
        """Fixes along the road from the store to the customer, one every 25 m, 3 s apart, ending now."""
        route = self.server.call(
            "GET", f"/api/v1/routes?from={STORE['lat']},{STORE['lon']}&to={HOME['lat']},{HOME['lon']}", dispatcher)
        points = resample(decode_polyline(route["geometry"]), 25)
        start = time.time() - 3 * len(points)
        fixes = [{"lat": lat, "lon": lon, "accuracyM": 8, "speedMps": 8,
                  "recordedAt": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(start + 3 * index)) + "Z"}
                 for index, (lat, lon) in enumerate(points)]
        self.server.call("POST", "/api/v1/rider/locations", self.token, {"fixes": fixes})


def order(server, dispatcher, ref, phone, pod="PHOTO", ready=True, customer="Priya Shah"):
    body = {"externalRef": ref, "podType": pod,
            "vendor": {"name": "Café de Paris", "address": "Place du Casino", "location": STORE},
            "customer": {"id": str(uuid.uuid4()), "name": customer, "phone": phone, "address": "Avenue de Fontvieille",
                         "location": HOME}}
    order_id = server.call("POST", "/api/v1/orders", dispatcher, body)["orderId"]
    if ready:
        server.call("POST", f"/api/v1/orders/{order_id}/ready", dispatcher)
    return order_id


def seed(server, tag):
    """The day so far: five riders (one never online), a delivery done with a photo, an order on its way, one waiting."""
    world = {"dispatcher": server.token("dispatcher", str(uuid.uuid4()), name="Dana Dispatcher"),
             "customer": server.token("customer", str(uuid.uuid4()))}
    dispatcher = world["dispatcher"]
    world["asha"] = Rider(server, "Asha Rao", 43.7390, 7.4270)
    world["omar"] = Rider(server, "Omar Haddad", 43.7402, 7.4285)
    world["lena"] = Rider(server, "Lena Vogel", 43.7394, 7.4279)
    world["marc"] = Rider(server, "Marc Dubois")  # his first fixes are the drive below
    world["noor"] = Rider(server, "Noor Khan", online=False)
    marc = world["marc"]

    done = order(server, dispatcher, f"DONE-{tag}", "+377 93 15 55 01")
    server.call("POST", f"/api/v1/orders/{done}/offers", dispatcher, {"riderIds": [marc.id]})
    task = marc.accept(done)
    marc.status(task, "ARRIVED_AT_STORE", STORE)
    marc.status(task, "PICKED_UP", STORE)
    marc.drive(dispatcher)
    marc.status(task, "ARRIVED_AT_DESTINATION", HOME)
    upload_photo(server, marc.token, task)
    marc.status(task, "DELIVERED", HOME)
    world["done"] = done

    lena = world["lena"]
    world["issue"] = order(server, dispatcher, f"ISSUE-{tag}", "+377 93 15 55 02", customer="Jon Berg")
    server.call("POST", f"/api/v1/orders/{world['issue']}/offers", dispatcher, {"riderIds": [lena.id]})
    world["issue-task"] = lena.accept(world["issue"])
    lena.status(world["issue-task"], "ARRIVED_AT_STORE", STORE)
    lena.status(world["issue-task"], "PICKED_UP", STORE)
    lena.fix(43.7370, 7.4250)

    world["cancel"] = order(server, dispatcher, f"CANCEL-{tag}", "+377 93 15 55 03", ready=False,
                            customer="Mia Weber")

    # At the door with a code the customer keeps getting wrong: locked, so only a dispatcher can settle it.
    ravi = world["ravi"] = Rider(server, "Ravi Iyer", 43.7392, 7.4274)
    world["door"] = order(server, dispatcher, f"DOOR-{tag}", "+377 93 15 55 04", pod="OTP", customer="Noah Petit")
    server.call("POST", f"/api/v1/orders/{world['door']}/offers", dispatcher, {"riderIds": [ravi.id]})
    world["door-task"] = ravi.accept(world["door"])
    for status in ["ARRIVED_AT_STORE", "PICKED_UP"]:
        ravi.status(world["door-task"], status, STORE)
    ravi.status(world["door-task"], "ARRIVED_AT_DESTINATION", HOME)
    for _ in range(5):
        server.call("POST", f"/api/v1/rider/tasks/{world['door-task']}/pod", ravi.token, {
            "type": "OTP", "value": "0000" if _ % 2 else "9999", "capturedAt": now(),
            "location": dict(HOME, accuracyM=5)}, expect=(400, 423))
    return world


# ---- The shift.

def shift(width, height, name):
    server = Server(LOGISTICS_OFFER_TTL_SECONDS=str(OFFER_TTL))
    driver = None
    started = time.time()
    try:
        tag = name.upper()
        world = seed(server, tag)
        print(f"     ({name}: the day so far seeded in {time.time() - started:.1f} s)", flush=True)
        driver = browser(width, height)
        sign_in(driver, server, world, name)
        fleet(driver, world, name)
        new_order = create_order(driver, name, tag)
        offers(driver, server, world, name, new_order)
        reassign(driver, server, world, name, new_order)
        issue(driver, server, world, name, tag)
        cancel(driver, server, world, name, tag)
        if name == "desktop":
            locked_code(driver, world, name, tag)
        reload(driver, name, tag)
        finished(driver, name, tag)
        rider_card(driver, name)
        sign_out(driver, name)
    finally:
        if driver is not None:
            logs = driver.get_log("browser")
            urls = requested_urls(driver)
            driver.quit()
            errors = [entry["message"] for entry in logs if entry["level"] == "SEVERE"]
            check(not errors, f"{name}: no errors in the console ({errors[:3]})")
            origin = server.base.replace("http://", "")
            foreign = [url for url in urls if origin not in url and not url.startswith(("data:", "blob:"))]
            check(not foreign, f"{name}: no request leaves the page's origin ({foreign[:3]})")
        server.stop()
    print(f"     ({name}: the shift took {time.time() - started:.1f} s)", flush=True)


def sign_in(driver, server, world, name):
    driver.get(server.base + "/dispatch")
    check(driver.find_element(By.ID, "sign-in").is_displayed(), f"{name}: the page asks to sign in first")
    check(not driver.find_element(By.ID, "app").is_displayed(), f"{name}: and shows nothing without one")
    if name == "desktop":
        driver.get(server.base + "/dispatch#token=" + world["customer"])
        wait_for("desktop: a customer's token is refused", lambda: text_of(driver, "sign-in-error") != "")
        check("token" not in driver.current_url, "desktop: the token leaves the address bar")
        driver.get_log("browser")  # the refused token's 403 is the browser reporting it, as it should
    check(driver.find_element(By.ID, "phone").is_displayed(), f"{name}: the sign-in asks for a phone number")
    # The shift itself runs on a development link (#token=…); signing in by phone has its own test.
    driver.get(server.base + "/dispatch#token=" + world["dispatcher"])
    wait_for(f"{name}: the live map opens", lambda: driver.find_element(By.ID, "app").is_displayed())
    wait_for(f"{name}: connected", lambda: text_of(driver, "connection") == "Live")
    wait_for(f"{name}: the map is drawn", lambda: canvas_ink(driver)[0] > 2000)
    wait_for(f"{name}: the riders with a position are on the map",
             lambda: int(text_of(driver, "rider-count") or 0) >= 4, timeout=10)
    wait_for(f"{name}: open orders are listed", lambda: f"ISSUE-{name.upper()}" in text_of(driver, "orders"))
    orders = text_of(driver, "orders")
    check(f"CANCEL-{name.upper()}" in orders and f"DONE-{name.upper()}" not in orders,
          f"{name}: open orders are listed, finished ones are not")
    check("Jon Berg" in orders and "+377 93 15 55 02" in orders and "Rider: Lena Vogel" in orders
          and "Café de Paris" in orders and "Avenue de Fontvieille" in orders,
          f"{name}: an order shows its customer, phone, store, address and rider by name")
    check_contrast(driver, f"{name} signed in")
    no_sideways_scroll(driver, f"{name} signed in")
    shot(driver, name, "signed-in")


def fleet(driver, world, name):
    tap_words(driver, "Riders", what=f"{name}: the Riders tab")
    wait_for(f"{name}: the riders list names every rider", lambda: all(
        rider in text_of(driver, "riders") for rider in ["Asha Rao", "Omar Haddad", "Lena Vogel", "Marc Dubois",
                                                        "Noor Khan"]))
    texts = driver.execute_script("return [...document.querySelectorAll('#riders button')].map((row) => row.innerText)")
    rows = {text.split("\n")[0]: text for text in texts}
    noor = next((text for head, text in rows.items() if "Noor Khan" in head), "")
    lena = next((text for head, text in rows.items() if "Lena Vogel" in head), "")
    marc = next((text for head, text in rows.items() if "Marc Dubois" in head), "")
    check("Offline" in noor and "no fix yet" in noor, f"{name}: a rider without a position is listed ({noor!r})")
    check("On a task" in lena and f"ISSUE-{name.upper()}" in lena and "last fix" in lena,
          f"{name}: a rider on a task shows the order's reference and the last fix ({lena!r})")
    check("1 delivery today" in marc and "Free" in marc, f"{name}: today's deliveries are counted ({marc!r})")
    shot(driver, name, "riders")
    tap_containing(driver, "Orders", what=f"{name}: back to the Orders tab")


def pin(driver, name, button, prompt, status, offset):
    """Asks for a pin with `button` and taps the map `offset` pixels from its middle."""
    tap_words(driver, button)
    wait_for(f"{name}: the map asks: {prompt}", lambda: prompt in text_of(driver, "map-prompt"))
    canvas = driver.find_element(By.ID, "map")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    time.sleep(0.4)
    ActionChains(driver).move_to_element_with_offset(canvas, *offset).click().perform()
    wait_for(f"{name}: the pin is placed", lambda: "Pin at 43.7" in text_of(driver, status))


def create_order(driver, name, tag):
    reference = f"NEW-{tag}"
    tap_words(driver, "New order")
    wait_for(f"{name}: the new order form opens", lambda: field(driver, "Customer name") is not None)
    store = field(driver, "Store")
    check("Café de Paris" in store.text, f"{name}: a store known from earlier orders is offered ({store.text!r})")
    no_sideways_scroll(driver, f"{name} new order form")
    shot(driver, name, "new-order-opened")
    if name == "desktop":
        # A store no order named yet: typed, and pinned on the map.
        Select(store).select_by_visible_text("Another store…")
        type_into(driver, "Store name", "Boulangerie Sainte-Dévote")
        type_into(driver, "Store address", "Rue Grimaldi 3")
        pin(driver, name, "Pin the store on the map", "Tap the map where the store is", "store-pin-status", (10, -20))
    type_into(driver, "Customer name", "Ines Martin")
    type_into(driver, "Customer phone", "+377 93 15 66 04")
    type_into(driver, "Customer address", "Boulevard Albert 1er 12")
    pin(driver, name, "Drop a pin on the map", "Tap the map where the customer is", "customer-pin-status", (-30, 25))
    type_into(driver, "Notes for the rider", "Leave it at the reception")
    tap_words(driver, "Photo", "label")
    minutes = driver.find_element(By.XPATH, "//label[normalize-space(.)='Ready in minutes']//input[@type='number']")
    tap(driver, minutes)
    minutes.clear()
    minutes.send_keys("10")
    check(driver.execute_script("return document.querySelector('input[name=ready]:checked').value") == "later",
          f"{name}: typing a preparation time chooses 'Ready in'")
    type_into(driver, "Reference (optional)", reference)
    no_sideways_scroll(driver, f"{name} new order form")
    shot(driver, name, "new-order")
    tap_words(driver, "Create order")
    wait_for(f"{name}: the new order opens on its panel", lambda: text_of(driver, "order-title") == reference)
    wait_for(f"{name}: it waits for the store first", lambda: "Waiting for the store" in text_of(driver, "order-status"))
    facts = text_of(driver, "order-facts")
    if name == "desktop":
        check("Boulangerie Sainte-Dévote, Rue Grimaldi 3" in facts, f"{name}: the typed store is the order's")
    check("Ines Martin" in facts and "+377 93 15 66 04" in facts and "Boulevard Albert 1er 12" in facts
          and "Leave it at the reception" in facts and "Ready by" in facts,
          f"{name}: the panel shows the customer, the note and when it should be ready")
    tap_words(driver, "Mark ready")
    wait_for(f"{name}: marked ready", lambda: "Ready for pickup" in text_of(driver, "order-status"))
    return reference


def offers(driver, server, world, name, reference):
    asha, omar = world["asha"], world["omar"]
    order_id = server.call("GET", f"/api/v1/orders?q={reference}", world["dispatcher"])["orders"][0]["orderId"]
    world["new"] = order_id
    tap_containing(driver, "Asha Rao", "label", f"{name}: a free rider near the store can be ticked")
    tap_words(driver, "Offer the order")
    wait_for(f"{name}: the offer reaches Asha", lambda: asha.offer_for(order_id) is not None)
    wait_for(f"{name}: the panel shows the offer waiting for an answer",
             lambda: "Asha Rao" in text_of(driver, "offers") and "waiting for an answer" in text_of(driver, "offers"))
    wait_for(f"{name}: the offer expires after {OFFER_TTL} s and the panel says so per rider",
             lambda: "expired" in text_of(driver, "offers"), timeout=OFFER_TTL + 8)
    wait_for(f"{name}: the feed says nobody took the order",
             lambda: f"No rider took {reference} (Asha Rao expired)" in driver.execute_script(
                 "return document.getElementById('feed').textContent"), timeout=8)
    wait_for(f"{name}: the order is flagged in the open orders",
             lambda: "Offer expired" in driver.execute_script("return document.getElementById('orders').textContent"))
    shot(driver, name, "offer-expired")
    tap_containing(driver, "Omar Haddad", "label")
    tap_words(driver, "Offer again")
    wait_for(f"{name}: offered again, to Omar", lambda: omar.offer_for(order_id) is not None)
    omar.accept(order_id)
    wait_for(f"{name}: Omar's acceptance shows", lambda: "accepted" in text_of(driver, "offers")
             and "Omar Haddad" in text_of(driver, "order-facts"), timeout=10)
    check("Rider on the way to the store" in text_of(driver, "order-status"), f"{name}: the order has its rider")


def reassign(driver, server, world, name, reference):
    omar, marc = world["omar"], world["marc"]
    tap_words(driver, "Reassign to another rider")
    wait_for(f"{name}: the reassignment asks why", lambda: f"Reassign {reference} to another rider"
             in text_of(driver, "decision-title"))
    tap_words(driver, "Reassign")
    wait_for(f"{name}: a decision without a reason is refused on the page",
             lambda: "Say why" in text_of(driver, "decision-error"))
    type_into(driver, "Reason (kept in the order’s log)", "Omar's scooter broke down")
    Select(field(driver, "What the rider is told")).select_by_visible_text("Your problem was heard: you are taken off it")
    tap_containing(driver, "Marc Dubois", "label")
    tap_words(driver, "Reassign")
    wait_for(f"{name}: the order is offered to Marc", lambda: marc.offer_for(world["new"]) is not None)
    wait_for(f"{name}: the timeline says whom it was taken from and why",
             lambda: "taken from Omar Haddad: Omar's scooter broke down" in text_of(driver, "timeline"))
    marc.accept(world["new"])
    task = server.call("GET", "/api/v1/rider/tasks/active", marc.token)["taskId"]
    changed = time.time()
    marc.status(task, "ARRIVED_AT_STORE", STORE)
    wait_for(f"{name}: a rider's status change is in the feed within 2 s",
             lambda: f"Marc Dubois arrived at the store for {reference}" in driver.execute_script(
                 "return document.getElementById('feed').textContent"), timeout=2)
    print(f"     (shown {time.time() - changed:.2f} s after the change)", flush=True)
    wait_for(f"{name}: Marc is the order's rider now", lambda: "Marc Dubois" in text_of(driver, "order-facts"))
    check(not control(driver, "Offer again"), f"{name}: an order with a rider cannot be offered")
    log = server.call("GET", f"/api/v1/orders/{world['new']}/events", world["dispatcher"])["events"]
    check(any(event["type"] == "OrderReassigned" and event["details"].get("reason") == "Omar's scooter broke down"
              and event["details"].get("reasonKind") == "RIDER_PROBLEM"
              for event in log), f"{name}: the reason and the words chosen for the rider are in the event log")
    world["marc-task"] = task


def issue(driver, server, world, name, tag):
    lena = world["lena"]
    reference = f"ISSUE-{tag}"
    server.call("POST", f"/api/v1/rider/tasks/{world['issue-task']}/issues", lena.token, {
        "type": "CUSTOMER_UNAVAILABLE", "note": "Nobody answers the door", "occurredAt": now(),
        "location": dict(HOME, accuracyM=5)})
    tap_words(driver, "Close")
    wait_for(f"{name}: the rider's issue is highlighted in the open orders with its type and note",
             lambda: any("Customer unavailable" in row.text and "Nobody answers the door" in row.text
                         for row in driver.find_elements(By.CSS_SELECTOR, "#orders .problem")), timeout=10)
    check(text_of(driver, "orders-badge") != "", f"{name}: the Orders tab counts the problems")
    check(f"Problem on {reference}: Customer unavailable (Lena Vogel)" in driver.execute_script(
        "return document.getElementById('feed').textContent"), f"{name}: the feed names the problem, order and rider")
    check_contrast(driver, f"{name} issue")
    shot(driver, name, "issue")
    tap_containing(driver, reference)
    wait_for(f"{name}: the problem shows on the order",
             lambda: "Customer unavailable" in text_of(driver, "order-problem")
             and "Nobody answers the door" in text_of(driver, "order-problem"))
    if name == "desktop":
        # First the failure is approved (the rider may then give up at once), then the parcel goes back instead.
        tap_words(driver, "Approve the failure")
        type_into(driver, "Reason (kept in the order’s log)", "Rang three times")
        tap_words(driver, "Approve the failure")
        wait_for(f"{name}: the approval is in the timeline",
                 lambda: f"Failure of {reference} approved: Rang three times" in text_of(driver, "timeline"))
        wait_for(f"{name}: the approval settles the problem", lambda: not text_of(driver, "order-problem"))
    else:
        check(control(driver, "Approve the failure") is not None, f"{name}: the failure can be approved")
    tap_words(driver, "Send back to the store")
    type_into(driver, "Reason (kept in the order’s log)", "Customer cannot be reached")
    Select(field(driver, "What the customer is told")).select_by_visible_text("We could not reach you")
    shot(driver, name, "return-reason")
    tap_words(driver, "Send back to the store")
    wait_for(f"{name}: the order goes back to the store",
             lambda: "Going back to the store" in text_of(driver, "order-status"))
    wait_for(f"{name}: the decision settles the problem", lambda: not text_of(driver, "order-problem"))
    returned = server.call("GET", f"/api/v1/orders/{world['issue']}/events", world["dispatcher"])["events"]
    check(any(event["type"] == "ReturnToStoreRequested" and event["details"].get("reasonKind") == "CUSTOMER_UNAVAILABLE"
              for event in returned), f"{name}: the words chosen for the customer are in the event log")
    lena.status(world["issue-task"], "RETURNED_TO_STORE", STORE)
    wait_for(f"{name}: the order ends returned", lambda: "Returned to the store" in text_of(driver, "order-status"))
    wait_for(f"{name}: the feed says the rider returned it",
             lambda: f"Lena Vogel returned {reference} to the store" in driver.execute_script(
                 "return document.getElementById('feed').textContent"))
    tap_words(driver, "Close")
    wait_for(f"{name}: a returned order leaves the open orders", lambda: reference not in text_of(driver, "orders"))


def cancel(driver, server, world, name, tag):
    reference = f"CANCEL-{tag}"
    tap_containing(driver, reference)
    wait_for(f"{name}: the order to cancel opens", lambda: text_of(driver, "order-title") == reference)
    tap_words(driver, "Cancel the order")
    wait_for(f"{name}: cancelling asks to confirm", lambda: f"Cancel {reference}?" in text_of(driver, "decision-title")
             and control(driver, "Keep the order") is not None)
    tap_words(driver, "Keep the order")
    check(control(driver, "Cancel the order") is not None and "Waiting for the store" in text_of(driver, "order-status"),
          f"{name}: 'Keep the order' keeps it")
    tap_words(driver, "Cancel the order")
    type_into(driver, "Reason (kept in the order’s log)", "The customer called to cancel")
    tap_words(driver, "Yes, cancel the order")
    wait_for(f"{name}: the order is cancelled", lambda: "Cancelled" in text_of(driver, "order-status"))
    log = server.call("GET", f"/api/v1/orders/{world['cancel']}/events", world["dispatcher"])["events"]
    check(any(event["type"] == "OrderCancelled" and event["details"].get("reason") == "The customer called to cancel"
              for event in log), f"{name}: the cancellation's reason is in the event log")
    tap_words(driver, "Close")


def locked_code(driver, world, name, tag):
    """A locked delivery code is flagged; the dispatcher confirms the delivery without proof, and the rider ends it."""
    reference = f"DOOR-{tag}"
    wait_for(f"{name}: the locked code is flagged in the open orders", lambda: any(
        reference in row.text and "Delivery code locked" in row.text
        for row in driver.find_elements(By.CSS_SELECTOR, "#orders .problem")))
    tap_containing(driver, reference)
    wait_for(f"{name}: the locked code shows on the order", lambda: "Delivery code locked" in text_of(driver, "order-problem"))
    tap_words(driver, "Confirm delivery without proof")
    type_into(driver, "Reason (kept in the order’s log)", "Customer showed ID at the door")
    tap_words(driver, "Confirm without proof")
    wait_for(f"{name}: the override is in the timeline", lambda: f"Delivery of {reference} confirmed without proof: "
             "Customer showed ID at the door" in text_of(driver, "timeline"))
    world["ravi"].status(world["door-task"], "DELIVERED", HOME)
    wait_for(f"{name}: the rider can then deliver it", lambda: "Delivered" in text_of(driver, "order-status"))
    tap_words(driver, "Close")


def reload(driver, name, tag):
    driver.refresh()
    wait_for(f"{name}: after a reload the page is still signed in", lambda: text_of(driver, "connection") == "Live")
    tap_words(driver, "Events")
    wait_for(f"{name}: the feed shows the last hour from the event log", lambda: all(
        words in text_of(driver, "feed") for words in [
            f"NEW-{tag} created", f"ISSUE-{tag} is going back to the store: Customer cannot be reached",
            f"CANCEL-{tag} cancelled: The customer called to cancel", f"Marc Dubois delivered DONE-{tag}",
            f"No rider took NEW-{tag} in time (offered to Asha Rao)"]))
    shot(driver, name, "feed-after-reload")
    tap_containing(driver, "Orders")


def finished(driver, name, tag):
    reference = f"DONE-{tag}"
    for words, what in [(reference, "reference"), ("93 15 55 01", "phone")]:
        type_into(driver, "Reference, phone or name", words)
        tap_words(driver, "Search")
        wait_for(f"{name}: the finished delivery is found by its {what}",
                 lambda: reference in text_of(driver, "results") and "Delivered" in text_of(driver, "results"))
    if name == "desktop":
        # By rider, day and status, no words.
        field(driver, "Reference, phone or name").clear()
        Select(field(driver, "Rider")).select_by_visible_text("Marc Dubois")
        Select(field(driver, "Status")).select_by_visible_text("Delivered")
        day = driver.execute_script("const d = new Date(); return [d.getFullYear(), d.getMonth() + 1, d.getDate()]")
        driver.execute_script("arguments[0].value = arguments[1]", field(driver, "Day"),
                              f"{day[0]:04d}-{day[1]:02d}-{day[2]:02d}")
        tap_words(driver, "Search")
        wait_for(f"{name}: found by rider, day and status", lambda: driver.execute_script(
            "return [...document.querySelectorAll('#results strong')].map((s) => s.textContent)") == [reference])
    tap_found(driver, lambda: visible(driver.find_elements(By.CSS_SELECTOR, "#results button")),
              f"{name}: the found delivery can be opened")
    wait_for(f"{name}: the delivery's timeline opens",
             lambda: f"Marc Dubois delivered {reference}" in text_of(driver, "timeline"))
    wait_for(f"{name}: the timeline sums up the roads driven",
             lambda: "matched from" in text_of(driver, "timeline"))
    wait_for(f"{name}: the proof photo is shown", lambda: driver.execute_script(
        "const img = document.querySelector('#proof img'); return img && img.complete && img.naturalWidth > 0"))
    blue = driver.execute_script(PATH_BLUE)
    check(blue > 200, f"{name}: the roads driven are drawn on the map ({blue} pixels of their colour)")
    check(not control(driver, "Cancel the order"), f"{name}: a finished order offers no decisions")
    no_sideways_scroll(driver, f"{name} finished order")
    shot(driver, name, "delivered-order")
    tap_words(driver, "Close")
    check(driver.execute_script(PATH_BLUE) < 50, f"{name}: closing the panel takes its path off the map")


def rider_card(driver, name):
    canvas = driver.find_element(By.ID, "map")
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", canvas)
    time.sleep(0.3)
    markers = driver.execute_script("return window.dispatchMarkers()")
    marc = next((marker for marker in markers if marker["name"] == "Marc Dubois"), None)
    size = canvas.size
    on_screen = marc and 0 < marc["at"][0] < size["width"] and 0 < marc["at"][1] < size["height"]
    if check(on_screen, f"{name}: Marc's marker is on the map"):
        ActionChains(driver).move_to_element_with_offset(
            canvas, marc["at"][0] - size["width"] / 2, marc["at"][1] - size["height"] / 2).click().perform()
    else:
        tap_words(driver, "Riders")
        tap_containing(driver, "Marc Dubois")
    wait_for(f"{name}: tapping a rider opens the rider's card", lambda: text_of(driver, "rider-title") == "Marc Dubois")
    facts = text_of(driver, "rider-facts")
    check(f"NEW-{name.upper()}" in facts and "Deliveries today\n1" in facts and "Last fix" in facts,
          f"{name}: the card shows the current order, the last fix and today's deliveries ({facts!r})")
    wait_for(f"{name}: the card draws the trail of the last 30 minutes",
             lambda: "Trail of the last 30 minutes" in text_of(driver, "rider-trail")
             and driver.execute_script(PATH_BLUE) > 200)
    no_sideways_scroll(driver, f"{name} rider card")
    shot(driver, name, "rider-card")
    tap_words(driver, "Close")
    wait_for(f"{name}: closing returns to the fleet view",
             lambda: driver.find_element(By.ID, "orders").is_displayed() and driver.execute_script(PATH_BLUE) < 50)


def sign_out(driver, name):
    tap_words(driver, "Sign out")
    wait_for(f"{name}: signing out returns to the sign-in box", lambda: driver.find_element(By.ID, "sign-in").is_displayed()
             and not driver.find_element(By.ID, "app").is_displayed())
    check(driver.execute_script("return sessionStorage.getItem('dispatchToken')") is None,
          f"{name}: the token is forgotten")
    driver.refresh()
    check(driver.find_element(By.ID, "sign-in").is_displayed(), f"{name}: a reload stays signed out")
    shot(driver, name, "signed-out")


def main():
    # Both shifts take about two minutes, the short tokens' renewals two and a half; a stuck one prints where every
    # thread was and ends.
    faulthandler.dump_traceback_later(700, exit=True)
    os.makedirs(ARTIFACTS, exist_ok=True)
    started = time.time()
    for width, height, name in [(360, 740, "phone"), (1280, 800, "desktop")]:
        shift(width, height, name)
        people_tab(width, height, name)
        if name == "desktop":
            consistency(width, height, name)
        phone_sign_in(width, height, name)
    stays_signed_in()
    print(f"     (both shifts, the People tab, signing in by phone and short tokens took {time.time() - started:.1f} s)",
          flush=True)
    if failures:
        print(f"{len(failures)} browser check(s) failed", flush=True)
        sys.exit(1)
    print("dispatch page checks passed", flush=True)


if __name__ == "__main__":
    main()
