"""Benchmark (not a test) of the web pages: page weight, time to the first drawn map, tile cutting.

Run after `swift build`: python3 Benchmarks/browser/page_bench.py. Localhost only; Debian's chromium.
"""

import gzip
import statistics
import time
import urllib.request

from selenium.webdriver.common.by import By

import os  # noqa: E402
import sys  # noqa: E402

# The browser tests' page drivers and server helpers are shared with these benches.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Browser"))

import tracking_page_test as pages


def fetch(url, gzipped=False):
    """The body as sent (still compressed when gzip was asked for) and the milliseconds it took."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gzipped else {})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
    return body, (time.perf_counter() - started) * 1000


def main():
    server = pages.Server()
    try:
        order_id, _, _, customer = pages.in_transit(server)
        link = server.call("POST", f"/api/v1/orders/{order_id}/tracking-links", customer)
        page = link["url"]

        raw = zipped = served = 0
        assets = ["/web/Tracking/track.js", "/web/Shared/map.js", "/web/Tracking/track.css"]
        for address in [page] + [server.base + path for path in assets]:
            body, _ = fetch(address)
            raw += len(body)
            zipped += len(gzip.compress(body, 9))
            served += len(fetch(address, gzipped=True)[0])
        print(f"tracking page weight (HTML + scripts + style, no tiles): {raw / 1024:.1f} KB raw, "
              f"{zipped / 1024:.1f} KB gzip -9, {served / 1024:.1f} KB as the server sends it to a browser")

        for z in range(13, 18):
            x, y = (int(v) for v in _tile(43.7384, 7.4246, z))
            times, sizes, sent = [], [], []
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    body, ms = fetch(f"{server.base}/map/tiles/{z}/{x + dx}/{y + dy}")
                    times.append(ms)
                    sizes.append(len(body))
                    sent.append(len(fetch(f"{server.base}/map/tiles/{z}/{x + dx}/{y + dy}", gzipped=True)[0]))
            cached = [fetch(f"{server.base}/map/tiles/{z}/{x}/{y}")[1] for _ in range(5)]
            print(f"tiles z{z}: first request (cut + encode) median {statistics.median(times):.1f} ms, "
                  f"max {max(times):.1f} ms; cached {statistics.median(cached):.1f} ms; "
                  f"size median {statistics.median(sizes) / 1024:.1f} KB, max {max(sizes) / 1024:.1f} KB raw, "
                  f"gzipped median {statistics.median(sent) / 1024:.1f} KB, max {max(sent) / 1024:.1f} KB")

        driver = pages.browser(360, 740)
        try:
            draws = []
            for _ in range(10):
                driver.get("about:blank")
                started = time.perf_counter()
                driver.get(page)
                while pages.canvas_ink(driver)[0] < 2000:
                    time.sleep(0.01)
                draws.append((time.perf_counter() - started) * 1000)
            print(f"navigation to first drawn map (headless chromium, 360x740, localhost, polled every 10 ms): "
                  f"median {statistics.median(draws):.0f} ms, min {min(draws):.0f}, max {max(draws):.0f}")
        finally:
            driver.quit()
    finally:
        server.stop()


def _tile(lat, lon, z):
    import math
    n = 2 ** z
    rad = math.radians(lat)
    return (lon + 180) / 360 * n, (1 - math.asinh(math.tan(rad)) / math.pi) / 2 * n


if __name__ == "__main__":
    main()
