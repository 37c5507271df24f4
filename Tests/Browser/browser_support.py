"""What the browser tests share: the real server binary on localhost, tokens, checks, waits, a headless chromium,
WCAG contrast of what is on screen and the requests a page made.

Only localhost is contacted; the browser is the system chromium (nothing is downloaded).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "PythonSupport"))
import logistics_api  # noqa: E402
from logistics_api import Refused, Unreachable  # noqa: E402,F401
BINARY = os.environ.get("LOGISTICS_BINARY") or os.path.join(ROOT, ".build", "debug", "logistics")
ARTIFACTS = os.path.join(ROOT, ".ci", "artifacts")
SECRET = "browser-test-secret-0123456789abcdef-0123"
STORE = {"lat": 43.7396, "lon": 7.4276}
HOME = {"lat": 43.7289, "lon": 7.4170}
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)
    return bool(condition)


def now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def parse_time(text):
    """An RFC 3339 time from the API as seconds since the epoch."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class Server:
    def __init__(self, **settings):
        self.directory = tempfile.mkdtemp(prefix="logistics-browser-")
        env = dict(os.environ, LOGISTICS_JWT_SECRET=SECRET, LOGISTICS_MAP=os.path.join(ROOT, "Maps", "monaco.osm.pbf"),
                   **settings)
        env.pop("DATABASE_URL", None)
        self.process = subprocess.Popen(
            [BINARY, "serve", "--port", "0", "--data-dir", self.directory],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
        deadline = time.time() + 120
        self.base = None
        while time.time() < deadline and self.base is None:
            line = self.process.stdout.readline()
            if not line and self.process.poll() is not None:
                break
            # The configuration printed before it may name other URLs (an external routing service).
            if "listening on http://" in line:
                self.base = "http://" + line.split("listening on http://", 1)[1].split()[0]
        if self.base is None:
            self.process.kill()
            raise RuntimeError("the server did not start")
        # Its later log lines must not fill the pipe and stall it.
        import threading
        threading.Thread(target=lambda: [None for _ in self.process.stdout], daemon=True).start()

    def token(self, role, subject, name=None):
        return subprocess.check_output(
            [BINARY, "token", "--role", role, "--sub", subject, "--data-dir", self.directory]
            + (["--name", name] if name else []),
            env=dict(os.environ, LOGISTICS_JWT_SECRET=SECRET), text=True).strip()

    def call(self, method, path, token=None, body=None, expect=(200, 201, 202)):
        """The answer's JSON; raises Refused (an ordinary exception) for a status not in `expect`."""
        return logistics_api.call(self.base, method, path, token, body, expect)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        shutil.rmtree(self.directory, ignore_errors=True)


def mint(role, subject, name=None, ttl=3600):
    """A token signed like `logistics token` with the tests' secret; a negative ttl makes an expired one."""
    return logistics_api.mint(role, subject, SECRET, name=name, ttl=ttl)


def canvas_ink(driver, canvas_id="map"):
    """How many pixels of the map differ from its background, and a fingerprint of the drawing."""
    return driver.execute_script("""
        const canvas = document.getElementById(arguments[0]) || document.querySelector('canvas');
        if (!canvas || !canvas.width || !canvas.height) return [0, ''];
        const g = canvas.getContext('2d');
        const data = g.getImageData(0, 0, canvas.width, canvas.height).data;
        let ink = 0, hash = 0;
        for (let i = 0; i < data.length; i += 4) {
            if (data[i] !== 0xee || data[i + 1] !== 0xf0 || data[i + 2] !== 0xf2) ink++;
            hash = (hash * 31 + data[i] + data[i + 1] * 7 + data[i + 2] * 13) | 0;
        }
        return [ink, String(hash)];
    """, canvas_id)


# WCAG 2.x contrast of every visible piece of text against the background it is drawn on.
CONTRAST = """
    const channel = (value) => { value /= 255; return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4; };
    const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    const rgba = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
    const background = (element) => {
        for (let node = element; node; node = node.parentElement) {
            const colour = rgba(getComputedStyle(node).backgroundColor);
            if (colour.length === 3 || colour[3] > 0) return colour.slice(0, 3);
        }
        return [255, 255, 255];
    };
    const results = [];
    for (const element of document.querySelectorAll('body *')) {
        const own = [...element.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim());
        if (!own || element.offsetParent === null) continue;
        const style = getComputedStyle(element);
        if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
        const fore = luminance(rgba(style.color)), back = luminance(background(element));
        const ratio = (Math.max(fore, back) + 0.05) / (Math.min(fore, back) + 0.05);
        const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
        const large = size >= 24 || (bold && size >= 18.66);
        // A disabled control is exempt from WCAG 1.4.3 (inactive user interface component).
        const inactive = element.closest('button:disabled, [aria-disabled="true"], fieldset:disabled') !== null;
        results.push([element.tagName + (element.id ? '#' + element.id : ''), Math.round(ratio * 100) / 100,
                      inactive ? 0 : (large ? 3 : 4.5)]);
    }
    return results;
"""


def check_contrast(driver, what):
    """WCAG AA: 4.5:1 for text, 3:1 for large text."""
    results = driver.execute_script(CONTRAST)
    weak = [item for item in results if item[1] < item[2]]
    lowest = min((item[1] for item in results), default=None)
    return check(results and not weak, f"{what}: text meets WCAG AA contrast ({len(results)} elements, lowest "
                                       f"{lowest}:1; failing {weak[:3]})")


def wait_for(what, condition, timeout=20, quiet=False):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if condition():
                if not quiet:
                    print("ok   " + what, flush=True)
                return True
        except Exception:
            pass
        time.sleep(0.1)
    check(False, what + " (timed out)")
    return False


def browser(width, height, extra_flags=()):
    options = webdriver.ChromeOptions()
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--window-size={width},{height}", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", *extra_flags]:
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    # Headless windows are at least 500 px wide; a phone's viewport is emulated instead.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
    return driver


def requested_urls(driver):
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") in ("Network.requestWillBeSent", "Network.webSocketCreated"):
            params = message["params"]
            urls.append(params.get("request", {}).get("url") or params.get("url"))
    return [url for url in urls if url]
