"""Signing in by phone and SMS code, as a rider does it on a 360x740 phone: an admin adds the rider with their phone
(the invitation comes by SMS), the rider types the number with spaces, gets the code screen with the Resend
countdown, types a wrong code first, then pastes the whole SMS; the rider stays signed in across a reload and an app
restart (the refresh token), and signing out ends it. A number nobody has gets the same code screen and no SMS. The
server sends its text messages to the test's own gateway on localhost (sms.py)."""

import re
import time

from browser_support import STORE, check

from .api import ADMIN
from .page import RiderPage, need, status_noise, wait
from .words import (CODE_FROM_SMS, GO_ONLINE, OTHER_NUMBER, PHONE_NUMBER, RESEND_CODE, SEND_CODE, SIGN_IN, SIGN_OUT,
                    WAITING)

NAME = "Meera Iyer"
# The server's LOGISTICS_PHONE_EXAMPLE (rider_app_test.py): the app shows the city's example, never one of its own.
EXAMPLE = "+91 22 4000 1234"
NUMBER, TYPED = "+919820012345", "+91 98200 12345"
UNKNOWN, UNKNOWN_TYPED = "+919820099999", "+91 98200 99999"
REFRESH_KEY = "riderRefreshToken"


def phone_sign_in(server, gateway):
    rider = server.call("POST", "/api/v1/riders", ADMIN, {"name": NAME, "phone": NUMBER, "vehicle": "MOTORCYCLE"},
                        expect=(201,))
    invitation = gateway.wait_message("phone: the new rider's invitation arrives by SMS", NUMBER, pattern=r"/rider\b")
    check(invitation and NAME in invitation["body"], f"phone: the invitation names the rider and the app "
                                                     f"({invitation and invitation['body']!r})")
    page = RiderPage(server, "phone", position=STORE)
    addresses = []

    def address():
        addresses.append(page.driver.current_url)

    try:
        page.get("/rider")
        need(page.wait_control(SEND_CODE, 20), "the sign-in screen's 'Send code'")
        check(page.field(PHONE_NUMBER) is not None and page.field(PHONE_NUMBER).get_attribute("type") == "tel",
              "phone: a field labelled 'Phone number' for a phone's keypad (type=tel)")
        check(page.control(SIGN_IN) is None, "phone: no 'Sign in' button before a code was sent")
        page.screen("sign-in-phone", must_show=SIGN_IN)

        check(page.field(PHONE_NUMBER).get_attribute("placeholder") == EXAMPLE,
              f"phone: the field's example is the server's LOGISTICS_PHONE_EXAMPLE "
              f"({page.field(PHONE_NUMBER).get_attribute('placeholder')!r})")

        # Without the country code the number cannot be told apart: the page says how to write it, asks nothing.
        page.type_into(PHONE_NUMBER, "98200 12345")
        page.tap(SEND_CODE)
        # The example's spaces do not break: the number is read whole on a narrow phone.
        hint = f"Enter your phone number with its country code, like {EXAMPLE.replace(' ', chr(0xA0))}."
        wait(f"phone: the page says how to write a number, like {EXAMPLE} (on one line)",
             lambda: hint in page.text(), 5, page=page)
        check(not page.shows("98200 12345."), "phone: and no example of the app's own")
        check(not page.requests("/api/v1/auth/code"), "phone: a number without its country code is not sent")
        page.screen("sign-in-phone-hint", must_show="with its country code, like")

        # A number nobody has: the same code screen (the page cannot tell who has an account), and no SMS.
        page.type_into(PHONE_NUMBER, UNKNOWN_TYPED)
        page.tap(SEND_CODE)
        page.wait_text("We sent a 6-digit code to +91…99. It works for 5 minutes.", 10)
        need(page.field(CODE_FROM_SMS), "the code field for a number nobody has")
        check(page.requests("/api/v1/auth/code", "POST"), "phone: the code was asked of the server")
        address()
        page.tap(OTHER_NUMBER)
        need(page.wait_control(SEND_CODE, 5), "the phone step again after 'Use another number'")

        # The rider's own number, typed with spaces as it is written down.
        page.type_into(PHONE_NUMBER, TYPED)
        page.tap(SEND_CODE)
        page.wait_text("We sent a 6-digit code to +91…45. It works for 5 minutes.", 10)
        code_field = need(page.field(CODE_FROM_SMS), "the code field")
        check(code_field.get_attribute("inputmode") == "numeric"
              and code_field.get_attribute("autocomplete") == "one-time-code",
              "phone: the code field brings up the digits keypad and offers the SMS's code (one-time-code)")
        check(page.driver.switch_to.active_element == code_field, "phone: the code field has the focus")
        resend = page.control(RESEND_CODE)
        first = resend.text if resend is not None else ""
        check(resend is not None and not page.enabled(resend) and re.fullmatch(r"Resend code in (30|29) s", first),
              f"phone: 'Resend code' waits, counting down from 30 s ({first!r})")
        page.screen("sign-in-code", must_show="Resend code in")
        counted = wait("phone: the Resend countdown goes down",
                       lambda: (lambda text: text if re.fullmatch(r"Resend code in \d+ s", text)
                                and int(text.split()[3]) < int(first.split()[3]) else None)(
                           page.control(RESEND_CODE).text), 5, page=page)
        check(counted and not page.enabled(page.control(RESEND_CODE)),
              f"phone: 'Resend code' is still disabled at {counted!r}")
        address()

        message, code = gateway.wait_code("phone: the code arrives by SMS", NUMBER)
        need(code, "the code's SMS")
        check(not gateway.to(UNKNOWN), f"phone: no SMS went to the number nobody has ({gateway.to(UNKNOWN)})")

        # First a wrong code, typed: six digits submit at once, and the page says how many tries are left.
        page.allow(*status_noise(400))
        wrong = f"{(int(code) + 1) % 1000000:06d}"
        page.type_into(CODE_FROM_SMS, wrong)
        page.wait_text("That code is not correct. 4 tries left.", 10)
        check(page.control(GO_ONLINE) is None and page.field(CODE_FROM_SMS) is not None,
              "phone: a wrong code does not sign in; the code field stays")
        page.screen("sign-in-wrong-code", must_show="not correct")

        # Then the whole SMS pasted: only its digits are kept, and the six of the code sign in.
        page.allow()
        started = time.time()
        field = page.paste_into(CODE_FROM_SMS, message["body"])
        signed_in = page.wait_control(GO_ONLINE, 15)
        if not signed_in:
            print(f"     (the code field holds {field.get_attribute('value')!r})", flush=True)
        need(signed_in, "the home screen after the pasted SMS")
        check(page.shows(NAME), f"phone: the rider's name '{NAME}' is shown")
        print(f"     (pasted code to home screen: {time.time() - started:.1f} s)", flush=True)
        tokens = page.driver.execute_script(f"return [sessionStorage.getItem('riderToken'), "
                                            f"localStorage.getItem('{REFRESH_KEY}')]")
        access, refresh = tokens
        check(access and refresh and refresh.startswith("rft_"),
              "phone: the access token is in sessionStorage and the refresh token in localStorage")
        me = server.call("GET", "/api/v1/rider/me", access)
        rider_id = str(rider.get("id") or rider.get("personId") or rider.get("riderId")).lower()
        check(me.get("riderId", "").lower() == rider_id and me.get("name") == NAME,
              f"phone: the token is the new rider's ({me.get('riderId')}, {me.get('name')}; added as {rider_id})")
        page.screen("signed-in", must_show=GO_ONLINE)
        address()

        # A reload keeps the rider signed in with the access token of the tab; no code, no new tokens.
        page.driver.refresh()
        need(page.wait_control(GO_ONLINE, 15), "the home screen after a reload")
        check(page.shows(NAME) and page.control(SEND_CODE) is None, "phone: a reload stays signed in")
        address()

        # An app restart: the tab's storage is gone; the refresh token signs the rider in again, without a code.
        refreshes = len(page.requests("/api/v1/auth/refresh", "POST"))
        page.driver.execute_script("sessionStorage.clear()")
        page.driver.refresh()
        need(page.wait_control(GO_ONLINE, 15), "the home screen after an app restart")
        check(page.shows(NAME), "phone: after a restart the rider is signed in again, by name")
        check(len(page.requests("/api/v1/auth/refresh", "POST")) == refreshes + 1,
              "phone: the restart signed in with the refresh token (one POST /api/v1/auth/refresh)")
        renewed = page.driver.execute_script(f"return [sessionStorage.getItem('riderToken'), "
                                             f"localStorage.getItem('{REFRESH_KEY}')]")
        check(renewed[0] and renewed[0] != access and renewed[1] and renewed[1] != refresh,
              "phone: the restart got a new access token and a new (rotated) refresh token")
        check(len(gateway.to(NUMBER)) == 2, f"phone: no new code was sent for the restart "
                                            f"({len(gateway.to(NUMBER))} messages to the rider in all)")
        address()

        # Nothing secret ever stood in the address bar: every entry of this tab's history.
        history = page.cdp("Page.getNavigationHistory")["entries"]
        seen = addresses + [entry["url"] for entry in history]
        secrets = [value for value in (access, refresh, renewed[0], renewed[1]) if value]
        check(not any(secret in url for url in seen for secret in secrets)
              and not any("token" in url.lower() or "rft_" in url for url in seen),
              f"phone: no token or refresh token ever in the address bar ({sorted(set(seen))})")

        # Signing out: back to sign-in, the refresh token forgotten here and ended on the server.
        page.tap(SIGN_OUT)
        need(page.wait_control(SEND_CODE, 10), "the sign-in screen after 'Sign out'")
        wait("phone: signing out tells the server (POST /api/v1/auth/logout)",
             lambda: page.requests("/api/v1/auth/logout", "POST"), 5)
        check(page.driver.execute_script(f"return localStorage.getItem('{REFRESH_KEY}')") is None
              and page.driver.execute_script("return sessionStorage.getItem('riderToken')") is None,
              "phone: after 'Sign out' neither token is kept")
        ended = server.call("POST", "/api/v1/auth/refresh", None, {"refreshToken": renewed[1]}, expect=(400, 401, 403))
        check(isinstance(ended, dict), f"phone: the server refuses the signed-out refresh token ({ended})")
        page.driver.refresh()
        need(page.wait_control(SEND_CODE, 15), "the sign-in screen after a reload once signed out")
        time.sleep(0.5)
        check(page.control(GO_ONLINE) is None and not page.shows(NAME),
              "phone: a reload after 'Sign out' stays signed out")
        check(page.driver.execute_script(f"return localStorage.getItem('{REFRESH_KEY}')") is None,
              "phone: localStorage has no refresh token after the reload")
        check(not gateway.to(UNKNOWN), "phone: still no SMS to the number nobody has")
        page.allow()
    finally:
        page.close()
