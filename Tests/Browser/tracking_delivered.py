"""The tracking page's road, rider arrow, delivery code, proof and rating (CUS-028 in full), for tracking_page_test.py.

Controls are found by the words a customer reads; the drawn route is measured both as the page's own length of the
line and as the blue pixels on the canvas, so a line that shortens in the page's state but not on screen fails.
"""

import os
import urllib.request
import uuid
import zlib

from selenium.webdriver.common.by import By

from browser_support import ARTIFACTS, HOME, check, check_contrast, now, wait_for

# The route's colour on the map (map.js TRAFFIC.UNKNOWN: no traffic colours for a customer).
ROUTE_PIXELS = """
const canvas = document.getElementById('map');
if (!canvas) return 0;
const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
let count = 0;
for (let i = 0; i < data.length; i += 4) {
  if (Math.abs(data[i] - 26) < 12 && Math.abs(data[i + 1] - 115) < 12 && Math.abs(data[i + 2] - 232) < 12) count++;
}
return count;
"""


def route(driver):
    """The road left as the page drew it: {metres, points, heading} and its blue pixels."""
    state = driver.execute_script("return window.trackingRoute ? window.trackingRoute() : null") or {}
    return state, driver.execute_script(ROUTE_PIXELS)


def by_words(driver, tag, words):
    """The visible element of that tag whose text holds the words."""
    found = driver.find_elements(By.XPATH, f"//{tag}[contains(normalize-space(.), '{words}')]")
    return next((element for element in found if element.is_displayed()), None)


def rider_marker(driver):
    """A fingerprint of the canvas around the rider's marker: its arrow's turn changes it."""
    return driver.execute_script("""
        const at = window.trackingRoute().rider;
        if (!at) return null;
        const data = document.getElementById('map').getContext('2d')
            .getImageData(Math.round(at[0]) - 16, Math.round(at[1]) - 16, 32, 32).data;
        let hash = 0;
        for (let i = 0; i < data.length; i++) hash = (hash * 31 + data[i]) | 0;
        return String(hash);
    """)


def rate(driver, stars_words, comment):
    """Chooses the stars by their words, writes the comment and sends the form."""
    by_words(driver, "label", stars_words).click()
    driver.find_element(By.ID, "rating-comment").send_keys(comment)
    by_words(driver, "button", "Send rating").click()


def rating_once(driver, page):
    """The rating from the delivered page, once: a second page open on the same link is told it was rated."""
    wait_for("after delivery: the rating form asks how it was",
             lambda: by_words(driver, "legend", "How was your delivery?") is not None)
    first = driver.current_window_handle
    driver.switch_to.new_window("tab")
    # The phone's viewport again: the emulation is per tab.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 360, "height": 740, "deviceScaleFactor": 1, "mobile": True})
    driver.get(page)
    wait_for("a second tab on the link shows the form too", lambda: by_words(driver, "button", "Send rating"))
    second = driver.current_window_handle
    driver.switch_to.window(first)
    by_words(driver, "button", "Send rating").click()
    wait_for("sending without stars asks for them first",
             lambda: driver.find_element(By.ID, "rating-message").text == "Choose how many stars first")
    rate(driver, "Good", "Quick and polite")
    wait_for("the rating is taken and shown back",
             lambda: "Your rating: 4 of 5" in driver.find_element(By.ID, "rating-given").text)
    check(not driver.find_elements(By.ID, "rating"), "the form is gone once rated")
    check_contrast(driver, "rated")
    driver.save_screenshot(os.path.join(ARTIFACTS, "tracking-rated-360x740.png"))
    driver.switch_to.window(second)
    rate(driver, "Excellent", "")
    wait_for("a second rating from the other tab is told it was rated already",
             lambda: driver.find_element(By.ID, "rating-given").text == "You have already rated this delivery")
    driver.save_screenshot(os.path.join(ARTIFACTS, "tracking-already-rated-360x740.png"))
    driver.close()
    driver.switch_to.window(first)


def png(width, height):
    """A real photo-sized PNG: a green field with a brown parcel, so the thumbnail is seen to be a picture."""
    rows = b""
    for y in range(height):
        row = b"\x00"
        for x in range(width):
            parcel = width // 3 < x < 2 * width // 3 and height // 3 < y < 2 * height // 3
            row += bytes((150, 100, 50) if parcel else (60, 140, 80))
        rows += row
    chunk = lambda kind, data: (len(data).to_bytes(4, "big") + kind + data
                                + zlib.crc32(kind + data).to_bytes(4, "big"))
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def upload_photo(server, rider, task_id):
    boundary = "----tracking" + uuid.uuid4().hex[:8]
    fields = {"capturedAt": now(), "lat": str(HOME["lat"]), "lon": str(HOME["lon"]), "accuracyM": "5"}
    body = b"".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n".encode()
                    for name, value in fields.items())
    body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"door.png\"\r\n"
             "Content-Type: image/png\r\n\r\n").encode() + png(240, 180) + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(server.base + f"/api/v1/rider/tasks/{task_id}/pod", data=body, method="POST")
    request.add_header("Authorization", "Bearer " + rider)
    request.add_header("Content-Type", f"multipart/form-data; boundary={boundary}")
    with urllib.request.urlopen(request, timeout=30) as response:
        check(response.status == 201, "photo: the rider's photo is taken as proof")


def photo_delivery(server, browser, ready):
    """A photo order delivered: its link shows the photo as a small thumbnail, and the rating still works."""
    dispatcher, order_id, rider_id, rider, customer = ready(
        server, "Sofia Rossi", "+377 93 15 00 03", ref="PHOTO-9", rider_name="Marc Dubois", pod_type="PHOTO")
    link = server.call("POST", f"/api/v1/orders/{order_id}/tracking-links", customer)
    offers = server.call("POST", f"/api/v1/orders/{order_id}/offers", dispatcher, {"riderIds": [rider_id]})
    task = server.call("POST", f"/api/v1/rider/offers/{offers['offers'][0]['offerId']}/accept", rider)
    for status in ["ARRIVED_AT_STORE", "PICKED_UP", "ARRIVED_AT_DESTINATION"]:
        server.call("PATCH", f"/api/v1/rider/tasks/{task['taskId']}/status", rider, {
            "status": status, "eventId": str(uuid.uuid4()), "occurredAt": now(), "location": dict(HOME, accuracyM=5)})
    upload_photo(server, rider, task["taskId"])
    server.call("PATCH", f"/api/v1/rider/tasks/{task['taskId']}/status", rider, {
        "status": "DELIVERED", "eventId": str(uuid.uuid4()), "occurredAt": now(), "location": dict(HOME, accuracyM=5)})
    driver = browser(360, 740)
    try:
        driver.get(link["url"])
        wait_for("photo: the proof photo is shown as a small thumbnail", lambda: driver.execute_script(
            "const img = document.getElementById('proof-photo');"
            "return img && img.complete && img.naturalWidth === 240 && img.getBoundingClientRect().width <= 100;"))
        check(by_words(driver, "figcaption", "Photo taken at your door") is not None, "photo: the photo is named")
        check(not driver.find_elements(By.ID, "code-confirmed"), "photo: no code line for a photo order")
        check_contrast(driver, "photo proof")
        driver.save_screenshot(os.path.join(ARTIFACTS, "tracking-photo-proof-360x740.png"))
        rate(driver, "Excellent", "")
        wait_for("photo: rated without a comment",
                 lambda: "Your rating: 5 of 5" in driver.find_element(By.ID, "rating-given").text)
        driver.get(link["url"])
        check("Your rating: 5 of 5" in driver.find_element(By.ID, "rating-given").text
              and not driver.find_elements(By.ID, "rating"), "photo: opened again, the rating given and no form")
        logs = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        check(not logs, f"photo: no errors or CSP violations in the console ({logs[:3]})")
    finally:
        driver.quit()
    summary = server.call("GET", f"/api/v1/riders/{rider_id}/ratings", dispatcher)
    check(summary["count"] == 1 and summary["averageStars"] == 5, f"photo: the rider's ratings count it ({summary})")
