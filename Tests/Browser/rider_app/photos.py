"""Scenario 5: photo proof: a refused one, then a real 3000x2000 JPEG shrunk in the browser."""

import base64
import os
import random

from selenium.webdriver.common.by import By

from browser_support import HOME, check

from .api import DISPATCHER, events, fetch_bytes, post_photo, rider_identity, task_at
from .page import RiderPage, enter_otp, need, sign_in, status_noise, wait
from .pictures import jpeg_size
from .words import CAPTURE, COMPLETE, DELIVERED, ENTER_OTP, SUBMIT_OTP


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


def locked_code(server, workdir):
    """Five wrong codes lock the delivery: the page asks for a photo as evidence, says a dispatcher must confirm,
    keeps 'Delivered' off until the dispatcher's override, then completes."""
    rider_id, rider = rider_identity("Kofi Mensah")
    order_id, task_id, customer = task_at(server, rider_id, rider, ["ARRIVED_AT_STORE", "PICKED_UP",
                                                                    "ARRIVED_AT_DESTINATION"], pod="OTP")
    page = RiderPage(server, "locked code", position=HOME)
    try:
        sign_in(page, rider, None, (ENTER_OTP,))
        code = server.call("GET", f"/api/v1/customer/orders/{order_id}", customer)["deliveryOtp"]
        wrong = f"{(int(code) + 1) % 10000:04d}"
        page.allow(*status_noise(400), *status_noise(423))
        for attempt in range(5):
            enter_otp(page, wrong)
            wait(f"locked code: wrong code {attempt + 1} answered",
                 lambda: len([request for request in page.requests("/pod", "POST")]) >= attempt + 1, 10)
            if attempt < 4:
                wait(f"locked code: {4 - attempt} tries left shown", lambda: str(4 - attempt) in page.text(), 10)
        need(page.wait_text("dispatcher", 10), "the locked-code message naming the dispatcher")
        need(page.wait_control(CAPTURE, 10), "'Capture Photo' after the lock-out")
        check(page.control(SUBMIT_OTP) is None, "locked code: the code box is gone")
        page.screen("proof-locked", must_show=CAPTURE)
        page.allow()

        photo = os.path.join(workdir, "locked-door.jpg")
        with open(photo, "wb") as handle:
            handle.write(make_jpeg(page, 1200, 800))
        choose_file(page, photo)
        kept = wait("locked code: the photo is kept for the dispatcher",
                    lambda: [event for event in events(server, order_id)
                             if event["type"] == "ProofOfDeliveryAwaitingOverride"], 20)
        if kept:
            details = kept[0]["details"]
            check("distanceM" in details and details.get("withinGeofence") == "true",
                  f"locked code: the photo's distance from the door is recorded ({details})")
        need(page.wait_text("A dispatcher must confirm", 10), "the page saying a dispatcher must confirm")
        delivered = page.control(DELIVERED)
        check(delivered is None or not page.enabled(delivered),
              "locked code: 'Delivered' stays off until the dispatcher confirms")
        check(not [event for event in events(server, order_id) if event["type"] == "ProofOfDeliveryAccepted"],
              "locked code: the photo was not taken as proof")
        page.screen("proof-awaiting-dispatcher", must_show="A dispatcher must confirm")

        server.call("POST", f"/api/v1/orders/{order_id}/pod-override", DISPATCHER,
                    {"reason": "photo of the parcel at the door checked"})
        need(page.wait_control(DELIVERED, 15, enabled=True), "'Delivered' enabled after the dispatcher's override")
        page.tap(DELIVERED)
        page.wait_text(COMPLETE, 10)
        wait("locked code: the order is DELIVERED",
             lambda: server.call("GET", f"/api/v1/orders/{order_id}", DISPATCHER)["status"] == "DELIVERED", 10)
    finally:
        page.close()
