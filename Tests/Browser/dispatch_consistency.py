"""The dispatcher's page agrees with itself (issue 57, item 11), on a desktop: a ready order nobody was offered is
flagged; the riders to tick show road figures (those of the rider's offer); "Offer again" waits for the round's
answers; the badge follows the rider to the store's counter as the timeline does; after a reassignment the first
rider's acceptance says it was undone; the feed names a store's order by its reference from its first line; the
customer's rating is on a delivered order's panel. On a phone, the banner asking for a pin is not covered by the
legend (issue 57, item 12). Riders' positions are the server's word (issue 57, item 4): an idle rider whose last fix
is 70 s old is still Free, and a rider with no fix yet is listed to offer by hand, after those with a position, and
takes the offer; the problems riders report are named in the dispatcher's words with the rider's note (item 9).
dispatch_page_test.py runs it once; about 45 s."""

import time
import uuid
from datetime import datetime, timedelta, timezone

from selenium.common.exceptions import (ElementClickInterceptedException, NoSuchElementException,
                                        StaleElementReferenceException)
from selenium.webdriver.common.by import By

from browser_support import ARTIFACTS, HOME, STORE, Server, browser, check, mint, now, wait_for


def text(driver, element_id):
    """The element's words as read, on one line (chips and times are blocks of their own)."""
    return " ".join(driver.execute_script("return document.getElementById(arguments[0]).innerText", element_id).split())


def tap(driver, xpath):
    """Taps what the XPath finds, looking again when the page redrew it in between (lists and the riders to tick are
    redrawn every few seconds)."""
    for attempt in range(5):
        try:
            element = driver.find_element(By.XPATH, xpath)
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
            element.click()
            return
        except (StaleElementReferenceException, ElementClickInterceptedException, NoSuchElementException):
            if attempt == 4:
                raise
            time.sleep(0.3)


def words(tag, text_):
    return f"//{tag}[normalize-space()=\"{text_}\"]"


def containing(tag, text_):
    return f"//{tag}[contains(normalize-space(), \"{text_}\")]"


def seconds_ago(seconds):
    return (datetime.now(timezone.utc) - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Rider:
    """An online rider, with a position or none yet (lat None)."""

    def __init__(self, server, name, lat=None, lon=None, age=0):
        self.server, self.name, self.id = server, name, str(uuid.uuid4())
        self.token = mint("rider", self.id, name=name)
        server.call("PUT", "/api/v1/rider/availability", self.token, {"status": "ONLINE"})
        if lat is not None:
            self.fix(lat, lon, age)

    def fix(self, lat, lon, age=0):
        self.server.call("POST", "/api/v1/rider/locations", self.token, {"fixes": [
            {"lat": lat, "lon": lon, "accuracyM": 5, "headingDeg": 90, "recordedAt": seconds_ago(age) if age else now()}]})

    def accept(self, order_id):
        offer = next(o for o in self.server.call("GET", "/api/v1/rider/offers", self.token)["offers"]
                     if o["orderId"] == order_id)
        return self.server.call("POST", f"/api/v1/rider/offers/{offer['offerId']}/accept", self.token)["taskId"]

    def status(self, task_id, status, place):
        self.server.call("PATCH", f"/api/v1/rider/tasks/{task_id}/status", self.token, {
            "status": status, "eventId": str(uuid.uuid4()), "occurredAt": now(), "location": dict(place, accuracyM=5)})


def new_order(server, token, ref, pod="PHOTO", ready=True):
    body = {"externalRef": ref, "podType": pod,
            "vendor": {"name": "Café de Paris", "address": "Place du Casino", "location": STORE},
            "customer": {"id": str(uuid.uuid4()), "name": "Priya Shah", "phone": "+377 93 15 55 09",
                         "address": "Avenue de Fontvieille", "location": HOME}}
    created = server.call("POST", "/api/v1/orders", token, body)
    if ready:
        server.call("POST", f"/api/v1/orders/{created['orderId']}/ready", token)
    return created["orderId"], body["customer"]["id"]


def delivered_and_rated(server, dispatcher, marc):
    """An order Marc delivered with the customer's code, rated four stars through its tracking link."""
    order_id, customer_id = new_order(server, dispatcher, "RATED-1", pod="OTP")
    server.call("POST", f"/api/v1/orders/{order_id}/offers", dispatcher, {"riderIds": [marc.id]})
    task = marc.accept(order_id)
    # The customer's link, made while the order runs (an ended order gets none); it rates the delivery afterwards.
    link = server.call("POST", f"/api/v1/orders/{order_id}/tracking-links", dispatcher)
    for status in ["ARRIVED_AT_STORE", "PICKED_UP"]:
        marc.status(task, status, STORE)
    marc.status(task, "ARRIVED_AT_DESTINATION", HOME)
    code = server.call("GET", f"/api/v1/customer/orders/{order_id}", mint("customer", customer_id))["deliveryOtp"]
    server.call("POST", f"/api/v1/rider/tasks/{task}/pod", marc.token, {
        "type": "OTP", "value": code, "capturedAt": now(), "location": dict(HOME, accuracyM=5)})
    marc.status(task, "DELIVERED", HOME)
    server.call("POST", f"/track/{link['token']}/rating", None, {"stars": 4, "comment": "Quick and kind"})


BANNER_CLEAR = """
    const banner = document.getElementById('map-prompt').getBoundingClientRect();
    const points = [[banner.left + 12, banner.top + banner.height / 2], [banner.right - 12, banner.top + banner.height / 2],
                    [banner.left + banner.width / 2, banner.top + 6]];
    return points.every(([x, y]) => document.getElementById('map-prompt').contains(document.elementFromPoint(x, y)));
"""


def pin_banner_on_a_phone(server, dispatcher):
    """The banner asking for a pin is whole on a phone, where the legend wraps onto two lines beside it."""
    driver = browser(360, 740)
    try:
        driver.get(server.base + "/dispatch#token=" + dispatcher)
        wait_for("phone: the map opens", lambda: driver.find_element(By.ID, "app").is_displayed())
        tap(driver, words("button", "New order"))
        tap(driver, words("button", "Drop a pin on the map"))
        wait_for("phone: the map asks for the customer's pin",
                 lambda: "Tap the map where the customer is" in text(driver, "map-prompt"))
        driver.execute_script("document.getElementById('map').scrollIntoView({block: 'start'})")
        time.sleep(0.4)
        check(driver.execute_script(BANNER_CLEAR), "phone: nothing covers the banner (the legend is under it)")
        driver.save_screenshot(f"{ARTIFACTS}/dispatch-phone-pin-banner-360x740.png")
    finally:
        driver.quit()


def positions(driver, name, ivo, nina):
    """The Riders tab says what the server says: Free for a fix 70 s old, no position yet for a rider never seen."""
    # Waiting at a corner: the app's last fix is 70 s old (a heartbeat and more late), which is not stale GPS.
    ivo.fix(43.7370, 7.4230, age=70)
    tap(driver, "//button[@role='tab'][normalize-space()='Riders']")
    rows = lambda: {row.split("\n")[0]: " ".join(row.split()) for row in driver.execute_script(
        "return [...document.querySelectorAll('#riders button')].map((row) => row.innerText)")}
    row = lambda who: next((line for head, line in rows().items() if who in head), "")
    wait_for(f"{name}: the riders list has Ivo's fix", lambda: "last fix 1 min ago" in row("Ivo Idle"))
    # Past 60 s, where the page's own clock called him stale, and after the page read the fleet again (every 10 s).
    time.sleep(10.5)
    check("Free" in row("Ivo Idle") and "Stale GPS" not in row("Ivo Idle") and "last fix 1 min ago" in row("Ivo Idle"),
          f"{name}: an idle rider whose last fix is 70 s old is still Free ({row('Ivo Idle')!r})")
    check("Stale GPS" in row("Sam Silent") and "last fix 2 min ago" in row("Sam Silent"),
          f"{name}: a rider not heard from past the server's 90 s is stale GPS ({row('Sam Silent')!r})")
    check("No position yet" in row("Nina Novak") and "no fix yet" in row("Nina Novak"),
          f"{name}: a rider with no fix yet says so ({row('Nina Novak')!r})")
    driver.save_screenshot(f"{ARTIFACTS}/dispatch-{name}-consistency-riders-{width_height(driver)}.png")
    tap(driver, "//button[@role='tab'][starts-with(normalize-space(), 'Orders')]")


def offered_without_position(driver, server, name, nina, order_id):
    """A rider with no position is listed after those with one, with the reason, and takes an offer made by hand."""
    tap(driver, containing("button", "READY-2"))
    wait_for(f"{name}: Nina is listed to offer to, with why there is no distance", lambda: (
        "Nina Novak · No position yet: offered without road distance" in text(driver, "candidates")))
    labels = driver.execute_script(
        "return [...document.querySelectorAll('#candidates label')].map((label) => label.innerText)")
    names = [" ".join(label.split()) for label in labels]
    last_placed = max((index for index, label in enumerate(names) if "by road" in label or "straight line" in label),
                      default=-1)
    nina_at = next((index for index, label in enumerate(names) if "Nina Novak" in label), -1)
    check(nina_at > last_placed >= 0, f"{name}: after the riders with a position ({names})")
    check(any("Ivo Idle" in label and "Stale GPS" not in label for label in names),
          f"{name}: Ivo is offered as any free rider, not as stale GPS ({names})")
    check(any("Sam Silent" in label and "Stale GPS · last fix 2 min ago" in label for label in names),
          f"{name}: Sam is offered with his stale GPS and how old his last fix is ({names})")
    tap(driver, containing("label", "Nina Novak"))
    driver.save_screenshot(f"{ARTIFACTS}/dispatch-{name}-consistency-no-position-{width_height(driver)}.png")
    tap(driver, words("button", "Offer the order"))
    wait_for(f"{name}: the server takes the offer to Nina", lambda: "Waiting for Nina Novak to answer"
             in text(driver, "offering"))
    offers = server.call("GET", "/api/v1/rider/offers", nina.token)["offers"]
    check([offer["orderId"] for offer in offers] == [order_id], f"{name}: Nina has the offer ({offers})")
    nina.task = nina.accept(order_id)
    wait_for(f"{name}: and accepts it", lambda: "Rider on the way to the store" in text(driver, "order-status"))
    tap(driver, words("button", "Close"))


ISSUES = [("STORE_CLOSED", "Store closed"), ("VEHICLE_TROUBLE", "Vehicle trouble"),
          ("UNSAFE", "Unsafe to continue"), ("WRONG_ADDRESS", "Wrong address"),
          ("ORDER_NOT_READY", "Order not ready")]


def problems_in_words(driver, server, name, nina):
    """Each kind of problem in the dispatcher's words, and the rider's note where the problem shows."""
    for kind, _ in ISSUES:
        server.call("POST", f"/api/v1/rider/tasks/{nina.task}/issues", nina.token, {
            "type": kind, "note": f"Note on {kind.lower()}" if kind == "ORDER_NOT_READY" else None,
            "occurredAt": now()})
        time.sleep(0.05)  # one after another, in order
    tap(driver, "//button[@role='tab'][normalize-space()='Events']")
    for kind, said in ISSUES:
        wait_for(f"{name}: the feed says {kind} as '{said}'",
                 lambda: f"Problem on READY-2: {said} (Nina Novak)" in text(driver, "feed"), timeout=10)
    wait_for(f"{name}: the feed's line carries the rider's note",
             lambda: "Problem on READY-2: Order not ready (Nina Novak) — “Note on order_not_ready”" in text(driver, "feed"))
    tap(driver, "//button[@role='tab'][starts-with(normalize-space(), 'Orders')]")
    wait_for(f"{name}: the open orders show the latest problem with its note",
             lambda: "Order not ready — “Note on order_not_ready”" in text(driver, "orders"))
    tap(driver, containing("button", "READY-2"))
    wait_for(f"{name}: so does the order's panel", lambda: "Order not ready — “Note on order_not_ready”"
             in text(driver, "order-problem"))
    driver.save_screenshot(f"{ARTIFACTS}/dispatch-{name}-consistency-problem-words-{width_height(driver)}.png")
    tap(driver, words("button", "Close"))


def width_height(driver):
    return "x".join(str(value) for value in driver.execute_script("return [window.innerWidth, window.innerHeight]"))


def consistency(width, height, name):
    server = Server()
    driver = None
    started = time.time()
    try:
        dispatcher = mint("dispatcher", str(uuid.uuid4()), name="Dana Dispatcher")
        asha = Rider(server, "Asha Rao", 43.7390, 7.4270)
        omar = Rider(server, "Omar Haddad", 43.7402, 7.4285)
        lena = Rider(server, "Lena Vogel", 43.7394, 7.4279)
        marc = Rider(server, "Marc Dubois", 43.7391, 7.4272)
        ivo = Rider(server, "Ivo Idle")  # his fix comes later, 70 s old
        Rider(server, "Sam Silent", 43.7420, 7.4300, age=150)  # lost: nothing heard for two and a half minutes
        nina = Rider(server, "Nina Novak")  # online, no fix yet
        delivered_and_rated(server, dispatcher, marc)
        ready_id, _ = new_order(server, dispatcher, "READY-1")
        fresh_id, _ = new_order(server, dispatcher, "READY-2")

        driver = browser(width, height)
        driver.get(server.base + "/dispatch#token=" + dispatcher)
        wait_for(f"{name}: a ready order nobody was offered is flagged in the list",
                 lambda: "Ready, but not offered to any rider" in text(driver, "orders"))
        driver.save_screenshot(f"{ARTIFACTS}/dispatch-{name}-consistency-fleet-{width}x{height}.png")

        # A store's order, made while the page is open: the feed names it by its reference from the first line.
        store = mint("vendor", str(uuid.uuid4()))
        shop_id, _ = new_order(server, store, "SHOP-1")
        server.call("POST", f"/api/v1/orders/{shop_id}/offers", dispatcher, {"riderIds": [lena.id]})
        tap(driver, "//button[@role='tab'][normalize-space()='Events']")
        wait_for(f"{name}: the feed names the store's order by its reference",
                 lambda: "SHOP-1 offered to Lena Vogel" in text(driver, "feed"))
        check(f"order {shop_id[:8]}" not in text(driver, "feed"), f"{name}: and never by its id")
        tap(driver, "//button[@role='tab'][starts-with(normalize-space(), 'Orders')]")

        positions(driver, name, ivo, nina)
        offered_without_position(driver, server, name, nina, fresh_id)
        problems_in_words(driver, server, name, nina)

        tap(driver, containing("button", "READY-1"))
        wait_for(f"{name}: the riders to tick show road distances and times, as their offers will",
                 lambda: "Asha Rao · " in text(driver, "candidates") and "by road" in text(driver, "candidates")
                 and "straight line" not in text(driver, "candidates"))
        tap(driver, containing("label", "Asha Rao"))
        tap(driver, words("button", "Offer the order"))
        wait_for(f"{name}: while Asha's offer waits, the page says so and offers no second round",
                 lambda: "Waiting for Asha Rao to answer" in text(driver, "offering"))
        check(not driver.find_element(By.ID, "offer").is_displayed(), f"{name}: no 'Offer again' meanwhile")
        driver.save_screenshot(f"{ARTIFACTS}/dispatch-{name}-consistency-offer-waiting-{width}x{height}.png")

        task = asha.accept(ready_id)
        wait_for(f"{name}: accepted: the badge says the rider is on the way",
                 lambda: "Rider on the way to the store" in text(driver, "order-status"))
        asha.status(task, "ARRIVED_AT_STORE", STORE)
        wait_for(f"{name}: arrived: the badge says what the timeline says",
                 lambda: "Rider at the store" in text(driver, "order-status")
                 and "Asha Rao arrived at the store for READY-1" in text(driver, "timeline"))
        wait_for(f"{name}: and so does the list", lambda: "Rider at the store" in text(driver, "orders"))

        server.call("POST", f"/api/v1/orders/{ready_id}/reassign", dispatcher,
                    {"reason": "Asha's bike has a flat", "riderIds": [omar.id]})
        wait_for(f"{name}: after the reassignment, the first acceptance says it was undone",
                 lambda: "Asha Rao accepted, then taken off the order" in text(driver, "offers")
                 and "Omar Haddad waiting for an answer" in text(driver, "offers"))
        check("Rider at the store" not in text(driver, "order-status"),
              f"{name}: and the badge no longer says a rider is at the store")
        driver.save_screenshot(f"{ARTIFACTS}/dispatch-{name}-consistency-reassigned-{width}x{height}.png")
        tap(driver, words("button", "Close"))

        driver.find_element(By.ID, "search-q").send_keys("RATED-1")
        tap(driver, words("button", "Search"))
        found = "//ul[@id='results']//button[contains(normalize-space(), 'RATED-1')]"
        wait_for(f"{name}: the search finds the delivered order", lambda: driver.find_elements(By.XPATH, found))
        tap(driver, found)
        wait_for(f"{name}: the customer's rating is on the delivered order's panel",
                 lambda: "Customer rating" in text(driver, "order-facts")
                 and "4 of 5" in text(driver, "order-facts") and "Quick and kind" in text(driver, "order-facts"))
        driver.save_screenshot(f"{ARTIFACTS}/dispatch-{name}-consistency-rated-{width}x{height}.png")
        errors = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        check(not errors, f"{name}: no errors in the console ({errors[:2]})")
        pin_banner_on_a_phone(server, dispatcher)
    finally:
        if driver is not None:
            driver.quit()
        server.stop()
    print(f"     ({name}: the page agreeing with itself took {time.time() - started:.1f} s)", flush=True)
