"""The rider's browser: one phone (RiderPage), controls and fields found by their visible words (typing, pasting),
waits, screenshots checked for being drawn and for WCAG AA contrast, the console and requests checked at the end;
signing in with a development link, going online, entering an OTP."""

import base64
import json
import os
import re
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser_support import ARTIFACTS, browser, check, check_contrast

from .devtools import DevTools
from .pictures import drawn_share
from .words import DESKTOP, ENTER_OTP, GO_OFFLINE, GO_ONLINE, PHONE, SUBMIT_OTP, WAITING


# Records what the page asks the browser to say (speechSynthesis exists in headless chromium but says nothing).
RECORDER = """
(() => {
    // What the network did, kept across reloads (sessionStorage) for the offline check's diagnostics.
    const note = (what) => {
        try {
            const list = JSON.parse(sessionStorage.getItem('__net') || '[]');
            list.push([Date.now() % 100000, what, navigator.onLine]);
            sessionStorage.setItem('__net', JSON.stringify(list.slice(-40)));
        } catch (error) {}
    };
    addEventListener('online', () => note('online'));
    addEventListener('offline', () => note('offline'));
    const fetch = window.fetch;
    window.fetch = function (resource, options) {
        const method = (options && options.method) || 'GET';
        if (method !== 'GET') note(method + ' ' + String(resource).slice(-40));
        return fetch.apply(this, arguments);
    };
    window.__spoken = [];
    const synth = window.speechSynthesis;
    if (!synth) return;
    const speak = synth.speak.bind(synth);
    synth.speak = (utterance) => {
        window.__spoken.push(String(utterance && utterance.text));
        try { speak(utterance); } catch (error) {}
    };
})();
"""


class Abort(Exception):
    """A step a scenario cannot go on without did not happen (already reported as FAIL)."""


def need(result, what=""):
    if not result:
        raise Abort(what)
    return result


def literal(text):
    """An XPath string literal for any text."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ", \"'\", ".join(f"'{part}'" for part in text.split("'")) + ")"


# HTTP answers the API gives by design that chromium reports on the console as "Failed to load resource".
BY_DESIGN = [r"/api/v1/rider/tasks/active - Failed to load resource: .*status of 404"]
OFFLINE_NOISE = [r"net::ERR_INTERNET_DISCONNECTED", r"WebSocket connection to .* failed",
                 r"Failed to fetch", r"net::ERR_FAILED"]


def status_noise(*codes):
    return [rf"Failed to load resource: the server responded with a status of {code}" for code in codes]


class RiderPage:
    """One rider's phone: a fresh chromium (its own storage), geolocation under the test's control."""

    def __init__(self, server, label, position=None, permission="granted", size=PHONE):
        self.server, self.label, self.size = server, label, size
        self.driver = browser(*size)
        self.devtools = DevTools(self.driver)
        self.console, self.unexpected, self.network, self.allowed = [], [], [], []
        self.devtools.send("Browser.setPermission", {"permission": {"name": "geolocation"}, "setting": permission,
                                                     "origin": server.base})
        self.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
        self.position = None
        if position:
            self.move(position)

    def cdp(self, method, params=None):
        return self.driver.execute_cdp_cmd(method, params or {})

    # Logs -------------------------------------------------------------------------------------------------------
    def drain(self):
        for entry in self.driver.get_log("browser"):
            self.console.append(entry)
            if entry["level"] == "SEVERE" and not any(re.search(pattern, entry["message"])
                                                      for pattern in BY_DESIGN + self.allowed):
                self.unexpected.append(f"[{self.label}] {entry['message'][:300]}")
        for entry in self.driver.get_log("performance"):
            self.network.append(json.loads(entry["message"])["message"])

    def allow(self, *patterns):
        """From now on (until the next allow) these console errors are what the step provokes on purpose."""
        self.drain()
        self.allowed = list(patterns)

    def requests(self, part=None, method=None):
        self.drain()
        found = []
        for message in self.network:
            if message.get("method") == "Network.requestWillBeSent":
                request = message["params"]["request"]
                if (part is None or part in request["url"]) and (method is None or request["method"] == method):
                    found.append(request["url"])
        return found

    def responses(self, part):
        self.drain()
        return [message["params"]["response"] for message in self.network
                if message.get("method") == "Network.responseReceived" and part in message["params"]["response"]["url"]]

    def urls(self):
        self.drain()
        found = []
        for message in self.network:
            if message.get("method") in ("Network.requestWillBeSent", "Network.webSocketCreated"):
                params = message["params"]
                found.append(params.get("request", {}).get("url") or params.get("url"))
        return [url for url in found if url]

    # Finding things by their words ------------------------------------------------------------------------------
    def control(self, words):
        """The visible control (button, link, label, switch) whose words are `words`, else None."""
        w = literal(words)
        kinds = "self::button or self::a or self::label or self::summary or @role='button' or @role='switch'"
        for xpath in [f"//*[{kinds}][normalize-space(.)={w}]",
                      f"//input[(@type='submit' or @type='button') and normalize-space(@value)={w}]",
                      f"//*[{kinds}][@aria-label={w}]",
                      f"//*[self::button or @role='button' or @role='switch'][contains(normalize-space(.), {w})]"]:
            for element in self.driver.find_elements(By.XPATH, xpath):
                try:
                    if element.is_displayed():
                        return element
                except Exception:
                    pass
        return None

    def field(self, words):
        """The visible text field whose label says `words`, else None."""
        label = self.control(words)
        if label is None or label.tag_name != "label":
            return None
        field = self.driver.execute_script("return arguments[0].control", label)
        return field if field is not None and field.is_displayed() else None

    def type_into(self, words, text, timeout=10):
        """Types `text` key by key into the field labelled `words`, as a person types (what was there goes first)."""
        field = need(wait(f"{self.label}: a field labelled '{words}'", lambda: self.field(words), timeout, True, self),
                     f"the field '{words}'")
        field.clear()
        field.send_keys(text)
        return field

    def paste_into(self, words, text, timeout=10):
        """Pastes `text` into the field labelled `words` over what is there (select all, then the clipboard's paste
        shortcut), as a person pastes a copied SMS."""
        field = need(wait(f"{self.label}: a field labelled '{words}'", lambda: self.field(words), timeout, True, self),
                     f"the field '{words}'")
        self.devtools.send("Browser.grantPermissions", {
            "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"], "origin": self.server.base})
        field.click()
        need(self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            navigator.clipboard.writeText(arguments[0]).then(() => done(true), (error) => done(false));
        """, text), "the text on the clipboard")
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(Keys.CONTROL, "v")
        return field

    def enabled(self, element):
        return element is not None and element.is_enabled() and element.get_attribute("aria-disabled") != "true"

    def text(self):
        return self.driver.execute_script("return document.body ? document.body.innerText : ''") or ""

    def shows(self, words):
        return words.lower() in self.text().lower()

    def wait_control(self, words, timeout=15, enabled=True, quiet=False):
        return wait(f"{self.label}: '{words}' is shown",
                    lambda: (lambda c: c if c is not None and (not enabled or self.enabled(c)) else None)(
                        self.control(words)), timeout, quiet, self)

    def wait_any(self, choices, timeout=15):
        """The first of these words on screen, as a control or as text."""
        return wait(f"{self.label}: one of {choices} is shown",
                    lambda: next((words for words in choices if self.control(words) is not None
                                  or self.shows(words)), None), timeout, page=self)

    def wait_text(self, words, timeout=15):
        return wait(f"{self.label}: the page says '{words}'", lambda: self.shows(words), timeout, page=self)

    def tap(self, words, timeout=15):
        """Taps the control with these words; returns the (before, after) times of the tap."""
        element = need(self.wait_control(words, timeout, quiet=True), f"'{words}' to tap")
        self.press(element)
        return self.last_tap

    def press(self, element):
        """A tap as a person makes it: the control scrolled to where it can be seen, then clicked."""
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", element)
        before = time.time()
        element.click()
        self.last_tap = (before, time.time())
        return self.last_tap

    # The phone --------------------------------------------------------------------------------------------------
    def get(self, path):
        self.driver.get("about:blank")
        self.driver.get(self.server.base + path)

    def move(self, point, accuracy=5):
        lat, lon = (point["lat"], point["lon"]) if isinstance(point, dict) else point
        self.position = (lat, lon)
        self.cdp("Emulation.setGeolocationOverride", {"latitude": lat, "longitude": lon, "accuracy": accuracy})

    def spoken(self):
        return self.driver.execute_script("return window.__spoken || []")

    def queue_length(self):
        return self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            if (!window.riderApp || !window.riderApp.queueLength) { done(-1); return; }
            window.riderApp.queueLength().then(done, () => done(-2));
        """)

    def screen(self, name, must_show=None):
        """Screenshots of what is on screen at 360x740 and 1280x800: each drawn (not blank) and readable."""
        if must_show:
            check(self.shows(must_show), f"{self.label}: the {name} screen shows '{must_show}'")
        for width, height in [PHONE, DESKTOP]:
            self.cdp("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
            time.sleep(0.35)
            self.driver.save_screenshot(os.path.join(ARTIFACTS, f"rider-{name}-{width}x{height}.png"))
            scale = 240 / width
            small = self.cdp("Page.captureScreenshot", {"format": "png", "clip": {
                "x": 0, "y": 0, "width": width, "height": height, "scale": scale}})["data"]
            share, colours = drawn_share(base64.b64decode(small))
            check(share > 0.01 and colours >= 4,
                  f"{self.label}: rider-{name}-{width}x{height}.png is drawn ({share:.1%} of pixels away from the "
                  f"background, {colours} colours)")
            check_contrast(self.driver, f"{self.label}: {name} at {width}x{height}")
        width, height = self.size
        self.cdp("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
        time.sleep(0.2)

    def close(self):
        try:
            self.drain()
        except Exception as error:
            check(False, f"{self.label}: the browser's logs could be read ({error})")
        origin = self.server.base.split("//", 1)[1]
        foreign = [url for url in self.urls() if not url.startswith(("data:", "blob:"))
                   and url.split("//", 1)[-1].split("/", 1)[0] != origin]
        check(not foreign, f"{self.label}: every request went to the page's own origin ({foreign[:3]})")
        provoked = [entry["message"] for entry in self.console if entry["level"] == "SEVERE"]
        check(not self.unexpected, f"{self.label}: no errors in the browser console ({self.unexpected[:4]}; "
                                   f"{len(provoked) - len(self.unexpected)} reports of answers the steps provoked "
                                   f"on purpose)")
        self.devtools.close()
        self.driver.quit()


def wait(what, condition, timeout=15, quiet=False, page=None):
    """Like wait_for, but returns the condition's value (so a found element can be used); when it does not come,
    what the page shows is printed beside the FAIL line."""
    deadline = time.time() + timeout
    last_error = None
    while time.time() < deadline:
        try:
            value = condition()
            if value:
                if not quiet:
                    print("ok   " + what, flush=True)
                return value
        except Exception as error:
            last_error = error
        time.sleep(0.1)
    check(False, what + " (timed out" + (f"; last error {type(last_error).__name__}" if last_error else "") + ")")
    if page is not None:
        try:
            print("     (on screen: " + " | ".join(page.text().split("\n"))[:400] + ")", flush=True)
        except Exception:
            pass
    return None


def within(moment, window, slack=0.5):
    return window[0] - slack <= moment <= window[1] + slack


def sign_in(page, token, name, expect=(GO_ONLINE, GO_OFFLINE)):
    page.get("/rider#token=" + token)
    need(page.wait_any(list(expect), 20), f"the first screen after signing in ({expect})")
    check("token" not in page.driver.current_url, f"{page.label}: the token is removed from the address bar "
                                                  f"({page.driver.current_url})")
    if name:
        check(page.shows(name), f"{page.label}: the rider's name '{name}' is shown")


def go_online(page):
    page.tap(GO_ONLINE)
    need(page.wait_control(GO_OFFLINE, 10), "the Go Offline switch")
    page.wait_text(WAITING, 10)


def enter_otp(page, code):
    box = otp_box(page)
    if box is None:
        control = page.control(ENTER_OTP)
        if control is not None:
            page.press(control)
        box = wait(f"{page.label}: a box for the OTP", lambda: otp_box(page), 5)
    need(box, "the OTP box")
    box.clear()
    box.send_keys(code)
    page.tap(SUBMIT_OTP)


def otp_box(page):
    for element in page.driver.find_elements(By.CSS_SELECTOR, "input:not([type=file]):not([type=hidden]):not("
                                                              "[type=checkbox]):not([type=radio]), textarea"):
        if element.is_displayed():
            return element
    return None
