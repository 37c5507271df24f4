"""Scenario 5: photo proof: a refused one, then a real 3000x2000 JPEG shrunk in the browser."""

import base64
import os
import random

from selenium.webdriver.common.by import By

from browser_support import HOME, check

from .api import DISPATCHER, events, fetch_bytes, post_photo, rider_identity, task_at
from .page import RiderPage, need, sign_in, status_noise, wait
from .pictures import jpeg_size
from .words import CAPTURE, COMPLETE, DELIVERED


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
