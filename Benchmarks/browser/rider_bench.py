"""Benchmark (not a test) of the rider web app (GET /rider), the issue's Numbers, in headless chromium on localhost.

Run after `swift build`: python3 Benchmarks/browser/rider_bench.py [--taps 30] [--queue 50] [--drive-seconds 20]
(LOGISTICS_BINARY=.build/release/logistics to drive a release server). Localhost only; Debian's chromium.

What it measures, and how:
- app shell: every same-origin response the first screen loads (HTML, scripts, style, manifest, icons; not the API's
  JSON, not map tiles), as the browser received them (gzip negotiated by chromium) and as `Accept-Encoding: gzip`
  gives them to urllib; target 60 KB gzipped in all.
- first screen usable: navigation start to "Go Online" (signed in) or "Send code" (not signed in) being on screen and
  enabled, measured in the page (performance.now() from a MutationObserver injected before the page's own scripts):
  first visits in a fresh browser, and repeat visits with the service worker's cache; target < 1 s.
- opens offline: after one visit, the page and its service worker are taken offline (DevTools, every target) and
  the page reloaded: does the first screen come, and how fast.
- map redraw during navigation: the time each animation-frame callback takes (the marker's glide and the map's
  redraw run in them), timed from outside the page by frame_timing's observer, while the position moves along the
  route every 100 ms; target p95 <= 16 ms.
- tap to server acknowledgement: from the tap (the click event's timeStamp) to the end of the response of the
  request it caused (Resource Timing), over whole deliveries tapped in the page (accept, three statuses, OTP,
  Delivered); target p95 < 300 ms.
- offline queue: taps made offline (the task's statuses, then problem reports, which the server takes as often as a
  rider sends them), then online: time until the page's queue is empty and the server has every one; target < 5 s.
"""

import argparse
import gzip
import statistics
import sys
import time
import urllib.request

import os  # noqa: E402
import sys  # noqa: E402

# The browser tests' page drivers and server helpers are shared with these benches.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Browser"))

import frame_timing
import rider_app_test as app
from browser_support import HOME, STORE, Server

# The words of the screen that should come: "Go Online" for a signed-in rider (the sign-in form must not count
# then), the phone step's "Send code" otherwise.
USABLE = """
(() => {
    window.__usable = null;
    if (!location.protocol.startsWith('http')) return;
    const words = sessionStorage.getItem('riderToken') || location.hash.includes('token=')
        ? ['Go Online'] : ['Send code'];
    const look = () => {
        if (window.__usable !== null) return;
        for (const element of document.querySelectorAll('button, [role=button], [role=switch], input[type=submit]')) {
            const text = (element.innerText || element.value || '').replace(/\\s+/g, ' ').trim();
            if (words.includes(text) && !element.disabled && element.getClientRects().length
                && getComputedStyle(element).visibility !== 'hidden') {
                window.__usable = performance.now();
                window.__usableWords = text;
                return;
            }
        }
    };
    new MutationObserver(look).observe(document, {subtree: true, childList: true, attributes: true,
                                                  characterData: true});
    const frame = () => { look(); if (window.__usable === null) requestAnimationFrame(frame); };
    requestAnimationFrame(frame);
})();
"""

TAPS = """
(() => {
    window.__taps = [];
    document.addEventListener('click', (event) => {
        const target = event.target.closest('button, [role=button], label, a') || event.target;
        window.__taps.push([event.timeStamp, (target.innerText || target.value || '').trim()]);
    }, true);
    if (performance.setResourceTimingBufferSize) performance.setResourceTimingBufferSize(10000);
})();
"""


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def usable_ms(page, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = page.driver.execute_script("return window.__usable")
        if value is not None:
            return value
        time.sleep(0.02)
    return None


def shell(server, rider):
    """The first screen's own files, as chromium received them and as gzip gives them."""
    page = app.RiderPage(server, "bench shell", position=STORE)
    try:
        page.get("/rider#token=" + rider)
        page.wait_control(app.GO_ONLINE, 15)
        time.sleep(1.0)
        page.drain()
        sizes, wire = {}, {}
        urls = {}
        for message in page.network:
            if message.get("method") == "Network.responseReceived":
                urls[message["params"]["requestId"]] = message["params"]["response"]["url"]
            if message.get("method") == "Network.loadingFinished":
                wire[message["params"]["requestId"]] = message["params"]["encodedDataLength"]
        for request_id, url in urls.items():
            path = url.replace(server.base, "")
            if not url.startswith(server.base) or path.startswith("/api/") or path.startswith("/map/"):
                continue
            sizes[path.split("#")[0]] = wire.get(request_id, 0)
        rows = []
        for path in sorted(sizes):
            request = urllib.request.Request(server.base + path, headers={"Accept-Encoding": "gzip"})
            with urllib.request.urlopen(request, timeout=30) as response:
                body = response.read()
                encoding = response.headers.get("Content-Encoding")
            raw = gzip.decompress(body) if encoding == "gzip" else body
            rows.append((path, len(raw), len(body) if encoding == "gzip" else len(gzip.compress(body, 9)),
                         sizes[path], encoding or "identity"))
        cache = page.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            (async () => {
                let total = 0, count = 0;
                for (const name of await caches.keys()) {
                    const cache = await caches.open(name);
                    for (const request of await cache.keys()) {
                        const response = await cache.match(request);
                        total += (await response.clone().arrayBuffer()).byteLength;
                        count++;
                    }
                }
                return [count, total];
            })().then(done, (error) => done([0, String(error)]));
        """)
    finally:
        page.close()
    return rows, cache


def first_screen(server, rider, samples):
    """Signed in (a link with the token, then reloads with the token in sessionStorage), and not signed in."""
    firsts, repeats, words, signed_out = [], [], set(), []
    for index in range(samples):
        page = app.RiderPage(server, "bench first screen", position=STORE)
        try:
            page.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": USABLE})
            page.driver.get(server.base + "/rider#token=" + rider)
            value = usable_ms(page)
            if value is not None:
                firsts.append(value)
            # Repeat visits: the service worker has the shell; the token is in sessionStorage.
            for _ in range(2):
                page.driver.refresh()
                value = usable_ms(page)
                if value is not None:
                    repeats.append(value)
                    words.add(page.driver.execute_script("return window.__usableWords"))
            page.driver.execute_script("sessionStorage.clear()")
            page.driver.refresh()
            value = usable_ms(page)
            if value is not None:
                signed_out.append(value)
        finally:
            page.close()
    return firsts, repeats, words, signed_out


def offline_open(server, rider):
    page = app.RiderPage(server, "bench offline", position=STORE)
    try:
        page.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": USABLE})
        page.get("/rider#token=" + rider)
        page.wait_control(app.GO_ONLINE, 15)
        app.wait("bench: the service worker controls the page",
                 lambda: page.driver.execute_script("return !!navigator.serviceWorker.controller"), 10)
        page.allow(*app.OFFLINE_NOISE)
        page.devtools.set_offline(True)
        time.sleep(0.3)
        page.driver.refresh()
        value = usable_ms(page)
        text = page.text()
        page.devtools.set_offline(False)
        page.allow()
        return value, text
    finally:
        page.close()


def redraw(server, seconds):
    rider_id, rider = app.rider_identity("Bench Navigator")
    order_id, task_id, _ = app.task_at(server, rider_id, rider, ["ARRIVED_AT_STORE", "PICKED_UP"])
    page = app.RiderPage(server, "bench redraw", position=STORE)
    try:
        frame_timing.install(page.driver)
        app.sign_in(page, rider, None, (app.TO_CUSTOMER,))
        page.tap(app.TO_CUSTOMER)
        page.wait_control(app.EXIT_NAV, 10)
        route = app.road_route(server, (STORE["lat"], STORE["lon"]), (HOME["lat"], HOME["lon"]))
        count = int(seconds * 10)
        # The route is long enough for the drive; spaced evenly over it.
        line = app.resample(route["points"], 10)
        step = max(1, len(line) // count)
        path = line[::step][:count]
        time.sleep(1)
        frame_timing.reset(page.driver)
        started = time.time()
        for index, point in enumerate(path):
            page.move(point)
            delay = started + (index + 1) * 0.1 - time.time()
            if delay > 0:
                time.sleep(delay)
        frames = frame_timing.frames(page.driver)
        return frames, len(path), time.time() - started
    finally:
        page.close()


def tap_acks(server, deliveries):
    """Whole deliveries tapped in the page; each tap's time to its request's response."""
    rider_id, rider = app.rider_identity("Bench Tapper")
    page = app.RiderPage(server, "bench taps", position=HOME)
    samples = []
    try:
        page.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": TAPS})
        app.sign_in(page, rider, None)
        app.go_online(page)
        for _ in range(deliveries):
            order_id, customer = app.new_order(server)
            app.offer(server, order_id, rider_id)
            page.tap(app.ACCEPT)
            page.tap(app.AT_STORE)
            page.tap(app.PICKED_UP)
            page.tap(app.AT_DESTINATION)
            otp = server.call("GET", f"/api/v1/customer/orders/{order_id}", customer)["deliveryOtp"]
            app.enter_otp(page, otp)
            page.tap(app.DELIVERED)
            page.wait_text(app.COMPLETE, 10)
            finish = page.control(app.COMPLETE)
            if finish is not None and not page.shows(app.WAITING):
                page.press(finish)
            page.wait_text(app.WAITING, 15)
        time.sleep(0.5)
        taps, resources = page.driver.execute_script("""
            return [window.__taps, performance.getEntriesByType('resource')
                .filter((entry) => /\\/api\\/v1\\/rider\\/(offers\\/[^/]+\\/accept|tasks\\/[^/]+\\/(status|pod))/
                                   .test(entry.name))
                .map((entry) => [entry.startTime, entry.responseEnd, entry.name])];
        """)
        actions = {app.ACCEPT, app.AT_STORE, app.PICKED_UP, app.AT_DESTINATION, app.SUBMIT_OTP, app.DELIVERED}
        for when, words in taps:
            if words not in actions:
                continue
            following = [entry for entry in resources if entry[0] >= when - 1]
            if following:
                samples.append((following[0][1] - when, words))
    finally:
        page.close()
    return samples


def offline_queue(server, size):
    """`size` taps made offline: the three statuses to the door, then problem reports; then online."""
    rider_id, rider = app.rider_identity("Bench Offline")
    order_id, task_id, _ = app.task_at(server, rider_id, rider, [])
    # At the customer's door already, so that "Arrived at Destination" asks nothing.
    page = app.RiderPage(server, "bench queue", position=HOME)
    try:
        app.sign_in(page, rider, None, (app.AT_STORE,))
        page.allow(*app.OFFLINE_NOISE)
        page.devtools.set_offline(True)
        time.sleep(0.3)
        made = 0
        for words in (app.AT_STORE, app.PICKED_UP, app.AT_DESTINATION):
            page.tap(words, 5)
            made += 1
            time.sleep(0.05)
        reasons = ["Customer unavailable", "Address not found"]
        while made < size:
            page.tap(app.REPORT, 5)
            page.tap(reasons[made % 2], 5)
            for words in ("Send", "Report", "Confirm"):
                control = page.control(words)
                if control is not None and control.is_enabled():
                    page.press(control)
                    break
            made += 1
        queued = page.queue_length()
        started = time.time()
        page.devtools.set_offline(False)
        drained = None
        while time.time() - started < 60:
            if page.queue_length() == 0:
                drained = time.time() - started
                break
            time.sleep(0.05)
        page.allow()
        log = app.events(server, order_id)
        received = len([event for event in log if event["type"] in ("DeliveryStatusUpdated", "DeliveryIssueReported")
                        and event["actor"]["role"] == "rider"])
        return queued, drained, received, made
    finally:
        page.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--deliveries", type=int, default=5, help="whole deliveries for the tap timings (6 taps each)")
    parser.add_argument("--queue", type=int, default=50)
    parser.add_argument("--drive-seconds", type=float, default=20)
    parser.add_argument("--samples", type=int, default=5)
    options = parser.parse_args()
    server = Server()
    table = []
    try:
        rider_id, rider = app.rider_identity("Bench Rider")
        rows, cache = shell(server, rider)
        zipped = sum(row[2] for row in rows)
        received = sum(row[3] for row in rows)
        print("app shell, the first screen's own files (gzip: as the server sends it with Accept-Encoding: gzip, or "
              "gzip -9 where it sends it plain):")
        for path, raw, gz, wire, encoding in rows:
            print(f"  {path:32s} {raw / 1024:7.1f} KB raw {gz / 1024:6.1f} KB gzip  {wire / 1024:6.1f} KB on the wire "
                  f"({encoding})")
        print(f"  service worker cache: {cache[0]} responses, {cache[1] if isinstance(cache[1], str) else round(cache[1] / 1024, 1)} KB")
        table.append((f"app shell, gzipped (all the first screen loads, {len(rows)} files)", f"{zipped / 1024:.1f} KB",
                      "<= 60 KB", zipped <= 60 * 1024))
        table.append(("app shell as chromium received it (bytes on the wire, headers included)", f"{received / 1024:.1f} KB",
                      "<= 60 KB", received <= 60 * 1024))

        firsts, repeats, words, signed_out = first_screen(server, rider, options.samples)
        table.append((f"first screen usable, first visit, signed in by link (median of {len(firsts)})",
                      f"{statistics.median(firsts):.0f} ms" if firsts else "never", "< 1000 ms",
                      bool(firsts) and statistics.median(firsts) < 1000))
        table.append((f"first screen usable, repeat visit, signed in (median of {len(repeats)})",
                      f"{statistics.median(repeats):.0f} ms" if repeats else "never", "< 1000 ms",
                      bool(repeats) and statistics.median(repeats) < 1000))
        table.append((f"first screen usable, not signed in: 'Send code' (median of {len(signed_out)})",
                      f"{statistics.median(signed_out):.0f} ms" if signed_out else "never", "< 1000 ms",
                      bool(signed_out) and statistics.median(signed_out) < 1000))
        value, text = offline_open(server, rider)
        table.append(("opens offline from the cache", f"yes, {value:.0f} ms" if value is not None else
                      f"no ({text[:40]!r})", "yes", value is not None))

        frames, fixes, elapsed = redraw(server, options.drive_seconds)
        if frames:
            table.append((f"map redraw during navigation p95 ({len(frames)} redraws, {fixes} fixes in {elapsed:.0f} s;"
                          f" p50 {percentile(frames, 0.5):.2f}, max {max(frames):.2f})",
                          f"{percentile(frames, 0.95):.2f} ms", "<= 16 ms", percentile(frames, 0.95) <= 16))
        else:
            table.append(("map redraw during navigation p95", "no frames", "<= 16 ms", False))

        acks = tap_acks(server, options.deliveries)
        times = [value for value, _ in acks]
        table.append((f"tap to server acknowledgement p95 ({len(times)} taps; p50 {percentile(times, 0.5):.0f}, "
                      f"max {max(times) if times else float('nan'):.0f})", f"{percentile(times, 0.95):.0f} ms",
                      "< 300 ms", bool(times) and percentile(times, 0.95) < 300))

        queued, drained, received, made = offline_queue(server, options.queue)
        table.append((f"offline queue of {made} taps replayed ({queued} queued, {received} on the server)",
                      f"{drained:.2f} s" if drained is not None else "not drained", "< 5 s",
                      drained is not None and drained < 5 and received >= made))
    finally:
        server.stop()
    print()
    print(f"{'figure':100s} {'value':>14s} {'target':>10s}")
    for what, value, target, met in table:
        print(f"{what:100s} {value:>14s} {target:>10s} {'met' if met else 'NOT MET'}")
    console = [failure for failure in app.failures]
    if console:
        print("\nnotes from the pages (console errors, timeouts):")
        for line in console:
            print("  " + line)
    sys.exit(0)


if __name__ == "__main__":
    main()
