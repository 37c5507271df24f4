"""A dispatcher's shift on short tokens, as two dispatchers live it at once (a phone at 360 px and a desktop): with
LOGISTICS_ACCESS_TOKEN_MINUTES=1 both stay signed in and live across three renewals, one with an order's panel open,
the other with a new order half typed; events made between the renewals reach both pages live, and nothing is
replayed twice. The typed order, for a registered store chosen from the list, reaches that store's staff (the order
names the store's id). Then an admin suspends one of them: the stream closes, the renewal is refused, the page signs
out with the server's words and keeps what was being typed, which comes back after signing in again.

About 2.5 minutes: the renewals of the two pages run side by side. dispatch_page_test.py runs it."""

import time
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser_support import STORE, Server, browser, check, check_contrast, mint, wait_for
from dispatch_sign_in import REFRESH_KEY, ACCESS_KEY, control, field, shot, tap, text_of, type_into
from rider_app.sms import Gateway

PEOPLE = {
    "phone": ("Dana Okafor", "+37799445581", "+377 99 44 55 81", 360, 740),
    "desktop": ("Eli Moreau", "+37799445582", "+377 99 44 55 82", 1280, 800),
}
STORE_NAME = "Boulangerie Grimaldi"
RENEWALS = 3


def sign_in_by_phone(driver, server, gateway, name, typed, number):
    driver.get(server.base + "/dispatch")
    type_into(driver, "Phone number", typed)
    before = len(gateway.to(number))
    tap(driver, "Send code", f"{name}: 'Send code' can be tapped")
    _, code = gateway.wait_code(f"{name}: the code arrives by SMS", number, after=before)
    if not code:
        raise AssertionError(f"{name}: no sign-in code came")
    type_into(driver, "Code from the SMS", code)
    wait_for(f"{name}: the live map opens", lambda: driver.find_element(By.ID, "app").is_displayed())
    wait_for(f"{name}: connected", lambda: text_of(driver, "connection") == "Live")


def access_token(driver):
    return driver.execute_script(f"return sessionStorage.getItem('{ACCESS_KEY}')")


def feed_lines(driver, order):
    """How many lines of the feed name the order (by its reference, or by its id's start)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#feed > *')].filter((line) => line.textContent.includes(arguments[0])"
        " || line.textContent.includes(arguments[1])).length", order["externalRef"], order["orderId"][:8])


def order_for_store(server, dispatcher, store_id, reference):
    return server.call("POST", "/api/v1/orders", dispatcher, {
        "externalRef": reference, "vendorId": store_id,
        "customer": {"id": str(uuid.uuid4()), "name": "Priya Shah", "phone": "+377 93 15 00 01",
                     "address": "Quai Antoine 1er 4", "location": {"lat": 43.7347, "lon": 7.4240}},
        "podType": "PHOTO"}, expect=(201,))


def stays_signed_in():
    started = time.time()
    gateway = Gateway()
    server = Server(LOGISTICS_ACCESS_TOKEN_MINUTES="1", **gateway.settings())
    drivers = {}
    try:
        admin = mint("admin", str(uuid.uuid4()), name="Avery Admin")
        people = {}
        for name, (person, number, _, _, _) in PEOPLE.items():
            people[name] = server.call("POST", "/api/v1/staff", admin,
                                       {"name": person, "phone": number, "role": "dispatcher"}, expect=(201,))
        store = server.call("POST", "/api/v1/vendors", admin, {
            "name": STORE_NAME, "address": "12 Rue Grimaldi", "location": STORE}, expect=(201,))
        dispatcher = mint("dispatcher", str(uuid.uuid4()), name="Office")
        made = [order_for_store(server, dispatcher, store["vendorId"], "RENEW-0")]

        for name, (_, number, typed, width, height) in PEOPLE.items():
            drivers[name] = browser(width, height)
            sign_in_by_phone(drivers[name], server, gateway, name, typed, number)

        # The phone keeps an order's panel open; the desktop types a new order for the registered store.
        phone, desktop = drivers["phone"], drivers["desktop"]
        wait_for("phone: the store's order is listed", lambda: "RENEW-0" in text_of(phone, "orders"))
        phone.find_element(By.XPATH, "//*[@id='orders']//*[contains(normalize-space(.), 'RENEW-0')]").click()
        wait_for("phone: the order's panel opens", lambda: text_of(phone, "order-title") == "RENEW-0")
        tap(desktop, "New order", "desktop: 'New order' can be tapped")
        wait_for("desktop: the registered store is offered in the list",
                 lambda: STORE_NAME in field(desktop, "Store").text)
        Select(field(desktop, "Store")).select_by_visible_text(f"{STORE_NAME} — 12 Rue Grimaldi")
        type_into(desktop, "Customer name", "Ines Martin")
        type_into(desktop, "Customer phone", "+377 93 15 66 04")
        type_into(desktop, "Customer address", "Quai Antoine 1er 4")  # placed by RENEW-0, an earlier order

        tokens = {name: access_token(driver) for name, driver in drivers.items()}
        for renewal in range(1, RENEWALS + 1):
            # A one-minute token is renewed about 12 s before it ends.
            for name, driver in drivers.items():
                wait_for(f"{name}: renewal {renewal} comes before the token ends",
                         lambda: access_token(driver) not in (None, tokens[name]), timeout=75, quiet=True)
                tokens[name] = access_token(driver)
            made.append(order_for_store(server, dispatcher, store["vendorId"], f"RENEW-{renewal}"))
            for name, driver in drivers.items():
                wait_for(f"{name}: after renewal {renewal} the page is live and the new order's event arrives",
                         lambda: text_of(driver, "connection") == "Live" and feed_lines(driver, made[-1]) >= 1,
                         timeout=15)
                check(driver.find_element(By.ID, "app").is_displayed()
                      and not driver.find_element(By.ID, "sign-in").is_displayed(),
                      f"{name}: still signed in after renewal {renewal}")
            check(text_of(phone, "order-title") == "RENEW-0" and phone.find_element(By.ID, "view-order").is_displayed(),
                  f"phone: the order's panel is still open after renewal {renewal}")
            check(field(desktop, "Customer name") is not None
                  and field(desktop, "Customer name").get_attribute("value") == "Ines Martin",
                  f"desktop: the half-typed order is still there after renewal {renewal}")
        for name, driver in drivers.items():
            counts = [feed_lines(driver, order) for order in made]
            check(all(count == 1 for count in counts),
                  f"{name}: one line per order created; replays after reconnecting added none twice ({counts})")
            shot(driver, name, f"after-{RENEWALS}-renewals")

        # The typed order is created for the registered store, and its staff see it.
        type_into(desktop, "Reference (optional)", "RENEW-FORM")
        tap(desktop, "Create order", "desktop: 'Create order' can be tapped")
        wait_for("desktop: the new order opens on its panel", lambda: text_of(desktop, "order-title") == "RENEW-FORM")
        created = server.call("GET", "/api/v1/orders?q=RENEW-FORM", dispatcher)["orders"]
        check(len(created) == 1 and created[0].get("vendorId") == store["vendorId"]
              and created[0]["vendor"]["name"] == STORE_NAME,
              f"desktop: the order names the registered store ({created and created[0].get('vendorId')})")
        staff = mint("vendor", store["vendorId"], name=STORE_NAME)
        seen = [item["externalRef"] for item in server.call("GET", "/api/v1/orders?open=true", staff)["orders"]]
        check("RENEW-FORM" in seen and "RENEW-0" in seen,
              f"the store's staff see the orders the dispatchers made for the store ({sorted(seen)})")

        # Suspended mid-shift with a new order half typed: signed out with the reason, the typing kept.
        tap(desktop, "New order", "desktop: 'New order' again")
        type_into(desktop, "Customer name", "Tom Keller")
        server.call("PATCH", f"/api/v1/people/{people['desktop']['personId']}", admin, {"suspended": True})
        wait_for("desktop: a suspension signs out", lambda: desktop.find_element(By.ID, "sign-in").is_displayed(),
                 timeout=30)
        said = text_of(desktop, "sign-in-error")
        check("suspended" in said and "kept" in said,
              f"desktop: the page says why and that the typed order is kept ({said!r})")
        check_contrast(desktop, "desktop signed out by a suspension")
        shot(desktop, "desktop", "suspended")
        server.call("PATCH", f"/api/v1/people/{people['desktop']['personId']}", admin, {"suspended": False})
        _, number, typed, _, _ = PEOPLE["desktop"]
        sign_in_by_phone(desktop, server, gateway, "desktop", typed, number)
        wait_for("desktop: the kept order comes back after signing in",
                 lambda: field(desktop, "Customer name") is not None
                 and field(desktop, "Customer name").get_attribute("value") == "Tom Keller")
        shot(desktop, "desktop", "draft-back")
        check(control(phone, "Sign out") is not None and text_of(phone, "connection") == "Live",
              "phone: the other dispatcher is still signed in and live")
        for name, driver in drivers.items():
            check(driver.execute_script(f"return localStorage.getItem('{REFRESH_KEY}')") is not None,
                  f"{name}: a refresh token is kept")
    finally:
        for driver in drivers.values():
            driver.quit()
        server.stop()
        gateway.stop()
    print(f"     (short tokens: {time.time() - started:.0f} s)", flush=True)
