"""Signing in to the dispatcher's page by phone and SMS code, as a dispatcher does it at 360 px and on a desktop: an
admin adds the dispatcher with their phone (the invitation comes by SMS), the dispatcher types the number with
spaces, gets the code screen with the Resend countdown, types a wrong code first, then the code from the SMS; the
live map opens, stays open across a reload and a new tab's start (the refresh token, no new SMS), no token ever
stands in the address bar, and "Sign out" ends it. A rider's phone gets a code but no live map. The server sends its
text messages to the test's own gateway on localhost (rider_app/sms.py). dispatch_page_test.py runs it."""

import base64
import json
import re
import time
import uuid

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

from browser_support import ARTIFACTS, Server, browser, canvas_ink, check, check_contrast, mint, requested_urls, wait_for
from rider_app.sms import Gateway

DISPATCHER, NUMBER, TYPED = "Dana Okafor", "+37799445571", "+377 99 44 55 71"
RIDER, RIDER_NUMBER, RIDER_TYPED = "Rui Santos", "+37799445572", "+377 99 44 55 72"
REFRESH_KEY, ACCESS_KEY = "dispatchRefreshToken", "dispatchToken"


def visible_button(driver, xpath):
    """The first displayed button the XPath finds (enabled or not), else None."""
    for element in driver.find_elements(By.XPATH, xpath):
        try:
            if element.is_displayed():
                return element
        except StaleElementReferenceException:
            continue
    return None


def control(driver, words):
    """The visible button whose words are exactly `words` (enabled or not)."""
    return visible_button(driver, f"//button[normalize-space(.)='{words}']")


def control_starting(driver, words):
    return visible_button(driver, f"//button[starts-with(normalize-space(.), '{words}')]")


def field(driver, label):
    """The input a visible label with these words names."""
    for element in driver.find_elements(By.XPATH, f"//label[normalize-space(.)='{label}']"):
        if element.is_displayed():
            return driver.find_element(By.ID, element.get_attribute("for"))
    return None


def type_into(driver, label, text):
    element = field(driver, label)
    if not check(element is not None, f"a field labelled '{label}'"):
        raise AssertionError(f"no field '{label}'")
    element.clear()
    element.send_keys(text)
    return element


def tap(driver, words, what):
    found = []
    wait_for(what, lambda: found.append(control(driver, words)) or (found[-1] and found[-1].is_enabled()), timeout=10)
    if found and found[-1] is not None:
        found[-1].click()


def shown(driver, element_id):
    try:
        return driver.find_element(By.ID, element_id).is_displayed()
    except Exception:
        return False


def text_of(driver, element_id):
    try:
        return driver.find_element(By.ID, element_id).text
    except Exception:
        return ""


def stored(driver):
    return driver.execute_script(f"return [sessionStorage.getItem('{ACCESS_KEY}'), localStorage.getItem('{REFRESH_KEY}')]")


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def shot(driver, name, step):
    width, height = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.save_screenshot(f"{ARTIFACTS}/dispatch-{name}-{step}-{width}x{height}.png")


def phone_sign_in(width, height, name):
    started = time.time()
    gateway = Gateway()
    server = Server(**gateway.settings())
    driver = None
    urls, addresses = [], []

    def requests(part):
        """Every request the page made so far whose URL contains `part` (the performance log is read once)."""
        urls.extend(requested_urls(driver))
        return [url for url in urls if part in url]

    def address():
        addresses.append(driver.current_url)

    try:
        admin = mint("admin", str(uuid.uuid4()), name="Avery Admin")
        person = server.call("POST", "/api/v1/staff", admin, {"name": DISPATCHER, "phone": NUMBER, "role": "dispatcher"},
                             expect=(201,))
        invitation = gateway.wait_message(f"{name}: the new dispatcher's invitation arrives by SMS", NUMBER,
                                          pattern=r"/dispatch\b")
        check(invitation and DISPATCHER in invitation["body"],
              f"{name}: the invitation names the dispatcher and the page ({invitation and invitation['body']!r})")
        rider = server.call("POST", "/api/v1/riders", admin,
                            {"name": RIDER, "phone": RIDER_NUMBER, "vehicle": "MOTORCYCLE"}, expect=(201,))
        driver = browser(width, height)

        # The phone step.
        driver.get(server.base + "/dispatch")
        address()
        check(shown(driver, "sign-in") and not shown(driver, "app"), f"{name}: /dispatch asks to sign in, no map")
        phone = field(driver, "Phone number")
        check(phone is not None and phone.get_attribute("type") == "tel",
              f"{name}: a field labelled 'Phone number' for a phone's keypad (type=tel)")
        check(control(driver, "Send code") is not None and control(driver, "Sign out") is None,
              f"{name}: 'Send code' is offered, 'Sign out' is not")
        type_into(driver, "Phone number", TYPED)
        check_contrast(driver, f"{name} sign-in phone")
        shot(driver, name, "sign-in-phone")

        # The code step: the number as typed, with spaces, is understood.
        tap(driver, "Send code", f"{name}: 'Send code' can be tapped")
        sent = "We sent a 6-digit code to +377…71. It works for 5 minutes."
        wait_for(f"{name}: the code screen says where the code went and for how long",
                 lambda: text_of(driver, "code-sent") == sent, timeout=10)
        code_field = field(driver, "Code from the SMS")
        check(code_field is not None and code_field.get_attribute("inputmode") == "numeric"
              and code_field.get_attribute("autocomplete") == "one-time-code",
              f"{name}: a 'Code from the SMS' field for the digits keypad that offers the SMS's code")
        check(code_field is not None and driver.switch_to.active_element == code_field,
              f"{name}: the code field has the focus")
        resend = control_starting(driver, "Resend code")
        first = resend.text if resend is not None else ""
        check(resend is not None and not resend.is_enabled() and re.fullmatch(r"Resend code in (30|29) s", first),
              f"{name}: 'Resend code' waits, counting down from 30 s ({first!r})")
        check(control(driver, "Open the live map") is not None and control(driver, "Use another number") is not None,
              f"{name}: 'Open the live map' and 'Use another number' are offered")
        check_contrast(driver, f"{name} sign-in code")
        shot(driver, name, "sign-in-code")
        counted = []
        wait_for(f"{name}: the Resend countdown goes down", lambda: counted.append(
            control_starting(driver, "Resend code").text) or (
            re.fullmatch(r"Resend code in \d+ s", counted[-1]) and int(counted[-1].split()[3]) < int(first.split()[3])),
            timeout=5)
        check(not control_starting(driver, "Resend code").is_enabled(),
              f"{name}: 'Resend code' is still disabled at {counted[-1] if counted else None!r}")
        address()
        message, code = gateway.wait_code(f"{name}: the code arrives by SMS", NUMBER)
        if not code:
            raise AssertionError("no code came")

        # A wrong code first: six digits submit at once; the page says how many tries are left.
        wrong = f"{(int(code) + 1) % 1000000:06d}"
        type_into(driver, "Code from the SMS", wrong)
        wait_for(f"{name}: a wrong code is refused with the tries left",
                 lambda: text_of(driver, "sign-in-error") == "That code is not correct. 4 tries left.", timeout=10)
        check(not shown(driver, "app") and field(driver, "Code from the SMS") is not None,
              f"{name}: a wrong code opens no map; the code field stays")
        shot(driver, name, "sign-in-wrong-code")

        # The right code, typed as the SMS groups it: only digits are kept, and the sixth signs in.
        code_field = type_into(driver, "Code from the SMS", f"{code[:3]} {code[3:]}")
        clicked = time.time()
        wait_for(f"{name}: the right code opens the live map", lambda: shown(driver, "app") and not shown(driver, "sign-in"),
                 timeout=10)
        print(f"     (code to live map: {time.time() - clicked:.1f} s)", flush=True)
        check(control(driver, "Sign out") is not None, f"{name}: 'Sign out' is in the header")
        wait_for(f"{name}: connected", lambda: text_of(driver, "connection") == "Live", timeout=10)
        wait_for(f"{name}: the map is drawn", lambda: canvas_ink(driver)[0] > 2000, timeout=10)
        access, refresh = stored(driver)
        check(access and refresh and refresh.startswith("rft_"),
              f"{name}: the access token is in sessionStorage and the refresh token in localStorage")
        who = claims(access) if access else {}
        check(who.get("role") == "dispatcher" and who.get("name") == DISPATCHER and who.get("sid"),
              f"{name}: the token is the new dispatcher's, from a sign-in session "
              f"({ {key: who.get(key) for key in ('role', 'name')} })")
        # Dispatchers add and suspend riders there (issue 57, item 10; dispatch_people.py uses it).
        check(shown(driver, "tab-people"), f"{name}: a dispatcher has a People tab, for riders")
        check_contrast(driver, f"{name} signed in by phone")
        shot(driver, name, "signed-in-by-phone")
        address()

        # A reload keeps the tab's access token: no code, no refresh.
        refreshes = len(requests("/api/v1/auth/refresh"))
        driver.refresh()
        wait_for(f"{name}: a reload stays signed in", lambda: shown(driver, "app")
                 and text_of(driver, "connection") == "Live", timeout=10)
        check(not shown(driver, "sign-in") and stored(driver) == [access, refresh],
              f"{name}: the reload kept the same tokens")
        check(len(requests("/api/v1/auth/refresh")) == refreshes, f"{name}: a reload asks for no new token")
        address()

        # A new tab's start: sessionStorage is empty, the refresh token signs in again without a code.
        driver.execute_script("sessionStorage.clear()")
        driver.refresh()
        wait_for(f"{name}: without the tab's token the refresh token signs in again", lambda: shown(driver, "app")
                 and text_of(driver, "connection") == "Live", timeout=10)
        renewed = stored(driver)
        check(len(requests("/api/v1/auth/refresh")) == refreshes + 1,
              f"{name}: one POST /api/v1/auth/refresh signed in again")
        check(renewed[0] and renewed[0] != access and renewed[1] and renewed[1] != refresh,
              f"{name}: a new access token and a new (rotated) refresh token")
        check(len(gateway.to(NUMBER)) == 2 and not requests("/api/v1/auth/code")[1:],
              f"{name}: no new code was sent ({len(gateway.to(NUMBER))} messages to the dispatcher: the invitation "
              "and one code)")
        address()

        # Nothing secret ever stood in the address bar: every address seen and this tab's whole history.
        history = driver.execute_cdp_cmd("Page.getNavigationHistory", {})["entries"]
        seen = addresses + [entry["url"] for entry in history]
        secrets = [value for value in (access, refresh, *renewed) if value]
        check(not any(secret in url for url in seen for secret in secrets)
              and not any("token" in url.lower() or "rft_" in url or "code" in url.lower() for url in seen),
              f"{name}: no token, refresh token or code ever in the address bar ({sorted(set(seen))})")

        # Signing out: back to the sign-in screen, both tokens forgotten and the session ended on the server.
        tap(driver, "Sign out", f"{name}: 'Sign out' can be tapped")
        wait_for(f"{name}: signing out returns to the sign-in screen", lambda: shown(driver, "sign-in")
                 and not shown(driver, "app") and control(driver, "Send code") is not None, timeout=5)
        check(text_of(driver, "sign-in-error") == "You have signed out.", f"{name}: the page says so "
                                                                          f"({text_of(driver, 'sign-in-error')!r})")
        wait_for(f"{name}: signing out tells the server (POST /api/v1/auth/logout)",
                 lambda: requests("/api/v1/auth/logout"), timeout=5)
        check(stored(driver) == [None, None], f"{name}: after 'Sign out' neither token is kept ({stored(driver)})")
        sessions = server.call("GET", f"/api/v1/people/{person['personId']}/sessions", admin)["sessions"]
        check(sessions and not any(session["live"] for session in sessions),
              f"{name}: the dispatcher's sign-in is ended on the server "
              f"({[(session['live'], session['revokedReason']) for session in sessions]})")
        ended = server.call("POST", "/api/v1/auth/refresh", None, {"refreshToken": renewed[1]}, expect=(400, 401, 403))
        check(isinstance(ended, dict), f"{name}: the server refuses the signed-out refresh token")
        refreshes = len(requests("/api/v1/auth/refresh"))
        driver.refresh()
        wait_for(f"{name}: the sign-in screen after a reload", lambda: control(driver, "Send code") is not None,
                 timeout=10)
        time.sleep(0.5)
        check(not shown(driver, "app") and shown(driver, "sign-in") and stored(driver) == [None, None],
              f"{name}: a reload after 'Sign out' stays signed out")
        check(len(requests("/api/v1/auth/refresh")) == refreshes, f"{name}: and asks for no token")

        # A rider's phone: the rider gets a code (the server cannot tell which page asks), the page opens no map.
        type_into(driver, "Phone number", RIDER_TYPED)
        tap(driver, "Send code", f"{name}: 'Send code' for the rider's phone")
        wait_for(f"{name}: the code screen for the rider's phone", lambda: text_of(driver, "code-sent")
                 == "We sent a 6-digit code to +377…72. It works for 5 minutes.", timeout=10)
        _, rider_code = gateway.wait_code(f"{name}: the rider's code arrives by SMS", RIDER_NUMBER)
        if not rider_code:
            raise AssertionError("no code came for the rider")
        type_into(driver, "Code from the SMS", rider_code)
        wait_for(f"{name}: a rider's phone is told it is not a dispatcher's", lambda: text_of(driver, "sign-in-error")
                 == "This phone belongs to a rider or a store, not to a dispatcher or an admin.", timeout=10)
        time.sleep(0.5)
        check(not shown(driver, "app") and control(driver, "Sign out") is None and stored(driver) == [None, None],
              f"{name}: the rider gets no live map and no token is kept")
        shot(driver, name, "sign-in-rider-refused")
        rider_sessions = server.call("GET", f"/api/v1/people/{rider['personId']}/sessions", admin)["sessions"]
        left = [session for session in rider_sessions if session["live"]]
        if left:
            # The page drops the tokens but does not end the sign-in it refused (see the report): noted, not failed.
            print(f"     (note: the refused rider's sign-in is still live on the server: {len(left)} session(s))",
                  flush=True)
        tap(driver, "Use another number", f"{name}: 'Use another number' can be tapped")
        wait_for(f"{name}: 'Use another number' returns to the phone step", lambda: field(driver, "Phone number")
                 is not None and field(driver, "Code from the SMS") is None, timeout=5)

        logs = driver.get_log("browser")
        # The wrong code's 400 is the browser reporting the refusal, as it should.
        severe = [entry["message"] for entry in logs if entry["level"] == "SEVERE"]
        refused = [message for message in severe if "/api/v1/auth/token" in message and " 400 " in message]
        errors = [message for message in severe if message not in refused]
        check(not errors and len(refused) == 1,
              f"{name}: no errors in the console but the wrong code's 400 ({len(refused)} of those; {errors[:3]})")
        origin = server.base.replace("http://", "")
        foreign = [url for url in requests("") if origin not in url and not url.startswith(("data:", "blob:"))]
        check(not foreign, f"{name}: no request leaves the page's origin ({foreign[:3]})")
    finally:
        if driver is not None:
            driver.quit()
        server.stop()
        gateway.stop()
    took = time.time() - started
    check(took < 30, f"{name}: signing in by phone took {took:.1f} s (under 30 s)")
