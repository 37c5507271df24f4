"""The handover on the store's page (issue 57, item 3), on a phone: "Ready" taken back within its minute, the rider
coming named with the road time to the store, their arrival, and "Ready" taken back too late (a phone woken from
sleep with the button still on screen): a clear error, the order unchanged. store_page_test.py runs it once, at
360 px; it adds about 40 s, most of it waiting out the minute of an order marked ready before the sign-in."""

import time
import uuid

from selenium.webdriver.common.by import By

from browser_support import ARTIFACTS, check, mint, now, wait_for

NEAR_THE_STORE = {"lat": 43.7335, "lon": 7.4215, "accuracyM": 8}


def orders_text(driver):
    return driver.find_element(By.ID, "orders").text


def row(driver, reference):
    return driver.find_element(By.XPATH, f"//ul[@id='orders']/li[span[@class='ref'][normalize-space()='{reference}']]")


def undo_button(driver, reference):
    return row(driver, reference).find_element(By.XPATH, ".//button[starts-with(normalize-space(), 'Undo')]")


def ready_late_order(server, store_token, name, order):
    """An order marked ready now, whose minute runs out while the rest of the scenario runs."""
    late = server.call("POST", "/api/v1/orders", store_token, dict(order, externalRef=f"LATE-{name.upper()}"))
    server.call("POST", f"/api/v1/orders/{late['orderId']}/ready", store_token)
    return late, time.time()


def rider_accepts(server, order_id):
    """A rider near the store, online, offered the order by a dispatcher, accepts it: returns (token, taskId)."""
    rider = mint("rider", str(uuid.uuid4()), name="Rita Moreau")
    server.call("PUT", "/api/v1/rider/availability", rider, {"status": "ONLINE"})
    server.call("POST", "/api/v1/rider/locations", rider, {"fixes": [dict(NEAR_THE_STORE, recordedAt=now())]})
    dispatcher = mint("dispatcher", str(uuid.uuid4()), name="Dana Dispatcher")
    offers = server.call("POST", f"/api/v1/orders/{order_id}/offers", dispatcher,
                         {"riderIds": [rider_id(rider)]})["offers"]
    task = server.call("POST", f"/api/v1/rider/offers/{offers[0]['offerId']}/accept", rider)
    return rider, task["taskId"]


def rider_id(token):
    import base64
    import json
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["sub"]


def handover(driver, server, name, reference, order_id, late, late_since, width, height):
    tap_undo = lambda: undo_button(driver, reference).click()  # noqa: E731
    wait_for(f"{name}: a ready order offers to take Ready back, counting down",
             lambda: "s)" in undo_button(driver, reference).text)
    driver.save_screenshot(f"{ARTIFACTS}/store-{name}-undo-{width}x{height}.png")
    tap_undo()
    wait_for(f"{name}: Ready taken back, the order is being prepared again",
             lambda: "Being prepared" in row(driver, reference).text
             and row(driver, reference).find_elements(By.XPATH, f".//button[normalize-space()='{reference} is ready']"))
    row(driver, reference).find_element(By.XPATH, f".//button[normalize-space()='{reference} is ready']").click()
    wait_for(f"{name}: ready again", lambda: "Ready, waiting for a rider" in row(driver, reference).text)

    rider, task_id = rider_accepts(server, order_id)
    wait_for(f"{name}: the rider coming is named, with the road time to the store",
             lambda: "Rita is on the way" in row(driver, reference).text
             and "min away" in row(driver, reference).text and "by road" in row(driver, reference).text, timeout=15)
    check("Moreau" not in orders_text(driver), f"{name}: the store sees the rider's first name only")
    driver.save_screenshot(f"{ARTIFACTS}/store-{name}-rider-coming-{width}x{height}.png")
    server.call("PATCH", f"/api/v1/rider/tasks/{task_id}/status", rider, {
        "status": "ARRIVED_AT_STORE", "location": NEAR_THE_STORE, "occurredAt": now(), "eventId": str(uuid.uuid4())})
    wait_for(f"{name}: the rider's arrival shows, with its time",
             lambda: "Rita is at the store" in row(driver, reference).text
             and "Arrived at" in row(driver, reference).text, timeout=15)
    driver.save_screenshot(f"{ARTIFACTS}/store-{name}-rider-arrived-{width}x{height}.png")

    # Too late: the phone slept with the button on screen (its timers stopped), and is tapped as it wakes.
    driver.refresh()
    late_ref = late["externalRef"]
    wait_for(f"{name}: the order marked ready earlier still offers its undo", lambda: undo_button(driver, late_ref))
    driver.execute_script("for (let id = 1; id < 10000; id++) { clearInterval(id); clearTimeout(id); }")
    time.sleep(max(0.0, late_since + 62 - time.time()))
    undo_button(driver, late_ref).click()
    wait_for(f"{name}: too late, the store is told so in words",
             lambda: 'It is too late to take "Ready" back' in driver.find_element(By.ID, "store-error").text
             and "Call the dispatcher" in driver.find_element(By.ID, "store-error").text)
    driver.save_screenshot(f"{ARTIFACTS}/store-{name}-undo-too-late-{width}x{height}.png")
    order = server.call("GET", f"/api/v1/orders/{late['orderId']}", mint("dispatcher", str(uuid.uuid4())))
    check(order["status"] == "READY_FOR_PICKUP" and order.get("readyAt"), f"{name}: and the order is unchanged")
    wait_for(f"{name}: the page shows it still waiting for a rider, without the undo",
             lambda: "Ready, waiting for a rider" in row(driver, late_ref).text
             and not row(driver, late_ref).find_elements(By.XPATH, ".//button[starts-with(normalize-space(), 'Undo')]"))
