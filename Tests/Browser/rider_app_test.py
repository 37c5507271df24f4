"""The rider's web app (GET /rider) in a real browser, used as a rider uses it, against the real server binary.

Run after `swift build`: python3 Tests/Browser/rider_app_test.py [scenario ...] (whole, offers, routing, bad,
flaky, far, offline, photo, batching, phone, shift; all by default). Debian's chromium driven by selenium; controls are
found by their visible words (XPath on text). Screenshots of every screen at 360x740 and 1280x800 go to
.ci/artifacts/rider-*.png, each checked for being drawn and for WCAG AA contrast; every page's console and requests
are checked at the end. Only localhost is contacted. Four servers (one with a 3 s offer TTL and an unreachable
routing service, one with automatic dispatch and batching, one sending its text messages to the test's SMS gateway)
and two phones at a time; about 90 s here. It stops by itself, prints ok/FAIL lines and a summary, exits non-zero
on a FAIL.

Beside chromedriver the test opens a second DevTools connection to the same browser (websocket-client comes with
selenium) for what selenium cannot do: taking the service worker offline together with the page (the "offline" of
DevTools applies per target), holding a request in flight (a slow network), losing the server's answer on the way
back, and answering 503 in the server's place.

The test is split by job in the rider_app package next to this file: words (the app's words), devtools (the second
DevTools connection), pictures (PNG and JPEG read back), page (the phone: controls by their words, waits,
screenshots, sign-in), api and geometry (the server side through HTTP), and the scenarios by subject: delivery,
navigation, offers, connection (offline taps, a flaky server), photos, security (sign-in refusals), batching (a
trip of two orders), shift (issue 57: two offers at once, a problem with its kind and note, the door leg's words,
arriving into the proof step, an idle rider heard from every 30 s), phone_sign_in (the phone number and the SMS
code, staying signed in, signing out) with sms (a local SMS gateway the server sends to). This file runs them in
order and prints the summary.
"""

import faulthandler
import os
import sys
import threading
import time
import traceback

from browser_support import ARTIFACTS, Server, check, failures

from rider_app.batching import batched_trip
from rider_app.connection import flaky_server, offline_taps
from rider_app.delivery import far_arrival, whole_delivery, without_gps
from rider_app.navigation import routing_down
from rider_app.offers import offer_failures
from rider_app.page import Abort
from rider_app.phone_sign_in import EXAMPLE as PHONE_EXAMPLE, phone_sign_in
from rider_app.photos import locked_code, photo_proof
from rider_app.security import bad_input
from rider_app.shift import whole_shift
from rider_app.sms import Gateway

# rider_bench.py drives the app through this module (`import rider_app_test as app`); these stay reachable here.
from rider_app.api import events, new_order, offer, rider_identity, task_at  # noqa: F401
from rider_app.geometry import resample, road_route  # noqa: F401
from rider_app.page import OFFLINE_NOISE, RiderPage, enter_otp, go_online, sign_in, wait  # noqa: F401
from rider_app.words import CONTACT_NUMBER
from rider_app.words import (ACCEPT, AT_DESTINATION, AT_STORE, COMPLETE, DELIVERED, EXIT_NAV, GO_ONLINE,  # noqa: F401
                             PICKED_UP, REPORT, SUBMIT_OTP, TO_CUSTOMER, WAITING)


# ---------------------------------------------------------------------------------------------------------------

# The scenarios that ran to their end (passed or failed): one that never got there, in either thread, is a failure.
finished = []


def scenario(name, function, *args):
    started = time.time()
    print(f"\n== {name}", flush=True)
    try:
        function(*args)
    except Abort as stop:
        check(False, f"{name}: stopped, {stop} did not come")
    except Exception as error:
        print("".join(line for line in traceback.format_exc().splitlines(True) if not line.startswith("#")),
              flush=True)
        check(False, f"{name}: stopped by {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
    print(f"   ({name}: {time.time() - started:.0f} s)", flush=True)
    finished.append(name)


def main():
    started = time.time()
    # A stuck run prints where every thread was and ends (CI stops it at 15 minutes).
    faulthandler.dump_traceback_later(720, exit=True)
    os.makedirs(ARTIFACTS, exist_ok=True)
    import tempfile
    workdir = tempfile.mkdtemp(prefix="rider-test-")
    ttl = 3
    servers = {}
    # The server's text messages (invitations, sign-in codes) go to a gateway of the test's own on localhost.
    gateway = Gateway()

    def start(key, **settings):
        servers[key] = Server(**settings)

    # The main server has the operator's call-masking number, so riders can call; the others have none.
    threads = [threading.Thread(target=start, args=("main",), kwargs={
                   "LOGISTICS_RIDER_CONTACT_NUMBER": CONTACT_NUMBER}),
               threading.Thread(target=start, args=("short",), kwargs={
                   "LOGISTICS_OFFER_TTL_SECONDS": str(ttl), "LOGISTICS_ROUTING_PROVIDER": "external",
                   "LOGISTICS_ROUTING_URL": "http://127.0.0.1:9"}),
               threading.Thread(target=start, args=("trips",), kwargs={
                   "LOGISTICS_AUTO_DISPATCH": "on", "LOGISTICS_BATCHING": "on"}),
               threading.Thread(target=start, args=("phones",), kwargs=dict(
                   gateway.settings(), LOGISTICS_PHONE_EXAMPLE=PHONE_EXAMPLE))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        if len(servers) < 4:
            raise RuntimeError("a server did not start")
        main_server, short = servers["main"], servers["short"]
        # `rider_app_test.py offers photo` runs only those scenarios.
        chosen = set(sys.argv[1:])

        def run(name, *args):
            if not chosen or name.split()[0] in chosen:
                scenario(name, *args)

        # Two phones at a time: the scenarios on the two servers run side by side.
        def in_turn(*runs):
            # Whatever stops the thread (even what `scenario` lets through, like SystemExit) is a failure, not a
            # silent end: the scenarios after it would never run.
            try:
                for run_args in runs:
                    run(*run_args)
            except BaseException as error:
                check(False, f"the second phone's scenarios stopped after {finished[-1:]}: {error!r}")

        second = threading.Thread(target=lambda: in_turn(
            ("offers", offer_failures, short, ttl),
            ("routing down", routing_down, short),
            ("bad input", bad_input, short),
            ("flaky server", flaky_server, short),
            ("batching", batched_trip, servers["trips"]),
            ("phone sign-in", phone_sign_in, servers["phones"], gateway),
        ))
        second.start()
        run("whole delivery", whole_delivery, main_server)
        run("far away", far_arrival, main_server)
        run("without GPS", without_gps, main_server)
        run("offline", offline_taps, main_server)
        run("photo", photo_proof, main_server, workdir)
        run("locked code", locked_code, main_server, workdir)
        run("shift", whole_shift, main_server)
        second.join()
    finally:
        for server in servers.values():
            server.stop()
        gateway.stop()
        import shutil
        shutil.rmtree(workdir, ignore_errors=True)
    elapsed = time.time() - started
    print(f"\nrider app: {len(failures)} check(s) failed in {elapsed:.0f} s" if failures
          else f"\nrider app: all checks passed in {elapsed:.0f} s", flush=True)
    for failure in failures:
        print("  FAIL " + failure, flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
