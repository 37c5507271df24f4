"""The dispatcher's page agrees with itself (issue 57, item 11), on a desktop: a ready order nobody was offered is
flagged; the riders to tick show road figures (those of the rider's offer); "Offer again" waits for the round's
answers; the badge follows the rider to the store's counter as the timeline does; after a reassignment the first
rider's acceptance says it was undone; the feed names a store's order by its reference from its first line; the
customer's rating is on a delivered order's panel. On a phone, the banner asking for a pin is not covered by the
legend (issue 57, item 12). dispatch_page_test.py runs it once; about 40 s."""

import time
import uuid

from selenium.webdriver.common.by import By

from browser_support import ARTIFACTS, HOME, STORE, Server, browser, check, mint, now, wait_for


def text(driver, element_id):
    """The element's words as read, on one line (chips and times are blocks of their own)."""
    return " ".join(driver.execute_script("return document.getElementById(arguments[0]).innerText", element_id).split())


def tap(driver, xpath):
    element = driver.find_element(By.XPATH, xpath)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def words(tag, text_):
    return f"//{tag}[normalize-space()=\"{text_}\"]"


def containing(tag, text_):
    return f"//{tag}[contains(normalize-space(), \"{text_}\")]"


class Rider:
    def __init__(self, server, name, lat, lon):
        self.server, self.name, self.id = server, name, str(uuid.uuid4())
        self.token = mint("rider", self.id, name=name)
        server.call("PUT", "/api/v1/rider/availability", self.token, {"status": "ONLINE"})
        server.call("POST", "/api/v1/rider/locations", self.token, {"fixes": [
            {"lat": lat, "lon": lon, "accuracyM": 5, "headingDeg": 90, "recordedAt": now()}]})

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
        delivered_and_rated(server, dispatcher, marc)
        ready_id, _ = new_order(server, dispatcher, "READY-1")

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
