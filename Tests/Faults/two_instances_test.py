"""Two instances behind nginx, one killed under load (issue #20, point 13).

Starts two `logistics serve` processes on one PostgreSQL schema and a Debian nginx in front of them (a generated
configuration in a temporary directory, listening on a free localhost port), then drives through nginx:

- riders posting a fix every 0.4 s, each fix far enough from the last to be shown to the customer;
- two customer tracking sockets per order on its way (one with the customer's token, one with a tracking link) and
  two dispatcher streams;
- dispatchers creating orders and riders taking them to the door and delivering them, every POST with an
  `Idempotency-Key` and every status change with its `eventId`, retried as a client should.

After a few seconds one instance is killed with SIGKILL. Every socket it held must reconnect through nginx, land
on the survivor and resume with `{"resumeFrom": seq, "stream": s}` (which, on another instance, answers the
documented `resync` and a fresh snapshot); no socket may see a seq gap inside a stream, and no fix or event may be
missing from a socket while it was connected. REST clients may see only the documented retryable answers (502/504
from nginx for a request in flight on the killed instance, 503, 409 IDEMPOTENCY_REQUEST_IN_PROGRESS); retried
POSTs must not create anything twice. Prints the figures; exits 1 on a failure.

Only localhost is contacted. Needs PostgreSQL (`LOGISTICS_TEST_DATABASE_URL`), nginx and websocket-client.

The test is split by job in the two_instances package next to this file: support (settings, checks, tokens, psql),
processes (the two instances and nginx), clients (the REST load: riders, deliveries, retries and their figures),
sockets (tracking sockets and dispatcher streams) and report (the checks after the run). This file runs it.
"""

import faulthandler
import shutil
import signal
import sys
import tempfile
import time
import uuid
from collections import Counter

from two_instances.clients import API, Flow, Rider, picked_up, stop_load
from two_instances.processes import Instance, Nginx
from two_instances.report import nginx_figures, report
from two_instances.sockets import Dispatcher, Follower
from two_instances.support import (DELIVER_AT, FLOW_WORKERS, KILL_AT, LOAD_SECONDS, TRACKED_ORDERS, check, failures,
                                   mint, psql, started)


# --- the run -----------------------------------------------------------------------------------------------------

def main():
    # The whole run takes about 40 s. A stuck one prints every thread and ends (CI stops it at 180 s); a SIGTERM
    # still stops nginx and the servers on the way out.
    faulthandler.dump_traceback_later(160, exit=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    directory = tempfile.mkdtemp(prefix="logistics-fault-")
    schema = "fault_" + uuid.uuid4().hex[:16]
    psql(f"CREATE SCHEMA {schema}")
    instances, nginx = [], None
    try:
        instances = [Instance("a", schema, directory)]
        instances.append(Instance("b", schema, directory))  # after a: migrations are not raced for nothing
        nginx = Nginx(directory, [instance.address for instance in instances])
        api = API(nginx.base)
        print(f"     instances a={instances[0].address} b={instances[1].address}, nginx {nginx.base}, "
              f"schema {schema}", flush=True)
        dispatcher = mint("dispatcher", str(uuid.uuid4()))

        tracked = [picked_up(api, dispatcher, f"fault-tracked-{index}") for index in range(TRACKED_ORDERS)]
        followers = []
        for order in tracked:
            link = api.call("POST", f"/api/v1/orders/{order['orderId']}/tracking-links", order["customer"])
            followers.append(Follower(nginx, order, order["customer"], f"customer {order['ref']}"))
            followers.append(Follower(nginx, order, link["token"], f"link {order['ref']}"))
        dispatchers = [Dispatcher(nginx, mint("dispatcher", str(uuid.uuid4())), f"dispatcher {index}")
                       for index in range(2)]
        for thread in followers + dispatchers:
            thread.start()
        time.sleep(1.5)  # every socket has its snapshot
        check(all(follower.first_snapshot_at for follower in followers),
              f"{len(followers)} tracking sockets opened through nginx")
        on = Counter(follower.instance for follower in followers + dispatchers)
        print(f"     sockets per instance: {dict(on)}", flush=True)

        riders = [Rider(api, order, index) for index, order in enumerate(tracked)]
        flows = [Flow(api, dispatcher, index) for index in range(FLOW_WORKERS)]
        load_start = time.time()
        for thread in riders + flows:
            thread.start()
        for rider in riders[: len(riders) // 2]:
            rider.deliver_at = load_start + DELIVER_AT

        # Kill the instance holding the most sockets.
        time.sleep(KILL_AT)
        victim = max(instances, key=lambda instance: on.get(instance.address, 0))
        survivor = instances[1] if victim is instances[0] else instances[0]
        killed_at = time.time()
        victim.process.kill()
        victim.process.wait()
        print(f"     killed instance {victim.name} ({victim.address}) with SIGKILL at t={killed_at - load_start:.1f}"
              f" s; {on.get(victim.address, 0)} sockets were on it", flush=True)

        time.sleep(max(0, load_start + LOAD_SECONDS - time.time()))
        stop_load.set()
        for thread in riders + flows:
            thread.join(timeout=40)
        time.sleep(2)  # the last fixes and events reach the sockets
        for thread in followers + dispatchers:
            thread.stop_at = time.time()
        for thread in followers + dispatchers:
            thread.join(timeout=10)

        report(api, dispatcher, tracked, followers, dispatchers, riders, flows, victim, survivor, killed_at, schema)
        nginx_figures(nginx)
    finally:
        stop_load.set()
        if nginx:
            nginx.stop()
        for instance in instances:
            instance.stop()
        try:
            psql(f"DROP SCHEMA {schema} CASCADE")
        except Exception:  # noqa: BLE001
            pass
        if failures:
            print(f"     logs kept in {directory}", flush=True)
        else:
            shutil.rmtree(directory, ignore_errors=True)
    print(f"{'FAILED' if failures else 'PASSED'} in {time.time() - started:.0f} s"
          + (f": {len(failures)} failures" if failures else ""), flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
