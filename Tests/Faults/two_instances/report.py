"""After the run: the checks on what the clients, the sockets and the database saw, and what nginx did."""

import os
from collections import Counter

from .clients import stats
from .support import FLOW_WORKERS, check, psql


def report(api, dispatcher, tracked, followers, dispatchers, riders, flows, victim, survivor, killed_at, schema):
    for thread in riders + flows + followers + dispatchers:
        check(thread.error is None, f"{type(thread).__name__} {getattr(thread, 'label', '')} ran without error"
              + (f" ({thread.error})" if thread.error else "")) if thread.error else None

    # REST: only the documented retryable answers, and nothing done twice.
    errors = {f"{method} {status}": count for (method, status), count in sorted(stats.errors.items(), key=str)}
    print(f"     REST: {stats.requests} requests, answers {dict(sorted(stats.statuses.items(), key=str))}, "
          f"retryable errors {errors or 'none'}, idempotent replays {stats.replayed}", flush=True)
    check(not stats.unexpected, f"REST clients saw only documented retryable errors ({stats.unexpected[:3]})")
    print(f"     POSTs answered 409 IN_PROGRESS (a key claimed by the killed instance, or by a retry still running) "
          f"then done: {len(stats.taken_over)}, after {stats.taken_over} s", flush=True)
    check(not stats.stuck, f"no POST held by a dead instance's claim for more than 5 s ({stats.stuck})")
    if stats.last_error:
        print(f"     REST 5xx and cut connections from {stats.first_error - killed_at:+.2f} s to {stats.last_error - killed_at:+.2f} s "
              "after the kill", flush=True)
    duplicates = psql(f"SELECT count(*) FROM (SELECT external_ref FROM {schema}.orders "
                      "WHERE external_ref LIKE 'fault-%' GROUP BY external_ref HAVING count(*) > 1) d")
    created = int(psql(f"SELECT count(*) FROM {schema}.orders WHERE external_ref LIKE 'fault-flow-%'"))
    intended = sum(len(flow.refs) for flow in flows)
    check(duplicates == "0", f"no order created twice by a retried POST ({duplicates} duplicated refs; "
                             f"{created} flow orders created of {intended} attempted)")
    twice = psql(f"SELECT count(*) FROM (SELECT order_id, status FROM {schema}.order_events WHERE status IS NOT NULL "
                 "GROUP BY order_id, type, status HAVING count(*) > 1) d")
    check(twice == "0", f"no status change recorded twice by a retried PATCH ({twice})")
    completed = sum(flow.completed for flow in flows)
    check(completed >= FLOW_WORKERS, f"{completed} whole deliveries completed through nginx during the run")

    # Customer sockets.
    moved = [follower for follower in followers if any(at >= killed_at - 0.01 for at, *_ in follower.disconnects)]
    cut = [follower for follower in followers if follower.disconnects]
    check(len(moved) > 0, f"{len(moved)} of {len(followers)} tracking sockets were cut by the kill")
    check(all(f.connections >= 2 for f in moved) and all(f.reconnected_at for f in moved),
          f"every cut tracking socket reconnected and resumed ({sum(f.resyncs for f in followers)} resync, "
          f"{sum(f.replays for f in followers)} replay)")
    recoveries = [f.reconnected_at[0] - killed_at for f in moved if f.reconnected_at]
    if recoveries:
        print(f"     tracking sockets back (resync and fresh snapshot) {min(recoveries):.2f}–{max(recoveries):.2f} s "
              "after the kill", flush=True)
    gaps = [gap for follower in followers for gap in follower.gaps]
    check(not gaps, f"no seq gap inside any stream ({gaps[:3]})")
    check(not [f for f in cut if f not in moved], "no socket was cut other than by the kill "
          f"({[(f.label, f.disconnects) for f in cut if f not in moved][:2]})")

    lost, covered, unrelayed = 0, 0, 0
    lost_detail = []
    rider_of = {id(rider.order): rider for rider in riders}
    for follower in followers:
        rider = rider_of[id(follower.order)]
        cuts = [at for at, *_ in follower.disconnects]
        for recorded, acked, upstream in rider.accepted:
            if recorded in follower.locations:
                continue
            if acked < follower.first_snapshot_at or (follower.ended and False):
                covered += 1
                continue
            # Missed while the socket was away: a snapshot after the reconnection must show it or a later fix. (The
            # hub publishes a fix before it is stored and acknowledged, so that snapshot may come before the ack.)
            covering = any(position is not None and position >= recorded and any(received > cut for cut in cuts)
                           for received, position, *_ in follower.snapshots)
            if any(cut - 2 <= acked for cut in cuts) and covering:
                covered += 1
                continue
            # A fix the killed instance acknowledged just before it died but never relayed: the next fix heals it.
            if upstream.startswith(victim.address) and killed_at - 1 <= acked <= killed_at + 0.01:
                unrelayed += 1
                continue
            lost += 1
            lost_detail.append((follower.label, round(acked - killed_at, 2), upstream, follower.instance,
                                len(cuts)))
    print(f"     fixes: {sum(len(r.accepted) for r in riders)} accepted; customer sockets missed {lost} while "
          f"connected, {covered} covered by a snapshot after a reconnection, {unrelayed} acknowledged by the "
          "killed instance in its last second and not relayed", flush=True)
    check(lost == 0, f"no fix lost on a connected tracking socket ({lost_detail[:4]})")

    for follower in followers:
        order = follower.order
        final = api.call("GET", f"/api/v1/orders/{order['orderId']}", dispatcher)["status"]
        if final == "DELIVERED":
            check(follower.ended and "DELIVERED" in follower.statuses,
                  f"{follower.label}: saw DELIVERED and the end ({follower.statuses[-3:]})")
        else:
            check(follower.statuses and follower.statuses[-1] == final,
                  f"{follower.label}: its last status is the order's ({final})")

    # Dispatcher sockets: every event of the run is in the log; none missing while a stream was connected.
    ids = psql(f"SELECT e.id, e.received_at FROM {schema}.order_events e").splitlines()
    log = {}
    for line in ids:
        event_id, received_at = line.split("|")
        received_at = int(received_at)
        log[event_id.lower()] = received_at / 1000 if received_at > 10**11 else received_at
    missed_connected, recovered, fixes_missed, fixes_away, fixes_unrelayed = 0, 0, 0, 0, 0
    for watcher in dispatchers:
        if not watcher.connected:
            continue
        first, last = watcher.connected[0][0], watcher.connected[-1][1]
        for event_id, received_at in log.items():
            if event_id in watcher.events or not first + 1 <= received_at <= last - 1:
                continue
            if any(start + 1 <= received_at <= end - 1 for start, end in watcher.connected):
                missed_connected += 1
            else:
                recovered += 1
        for rider in riders:
            for recorded, acked, upstream in rider.accepted:
                if (rider.order["riderId"], recorded) in watcher.fixes or not first + 1 <= acked <= last - 1:
                    continue
                if upstream.startswith(victim.address) and killed_at - 1 <= acked <= killed_at + 0.01:
                    fixes_unrelayed += 1
                elif any(start + 1 <= acked <= end - 1 for start, end in watcher.connected):
                    fixes_missed += 1
                else:
                    fixes_away += 1
    print(f"     dispatcher streams: {len(log)} events in the log; {recovered} missed while a stream was away "
          f"(they are in the event log), {missed_connected} missed while connected; fixes: {fixes_away} missed while "
          f"away, {fixes_unrelayed} acknowledged by the killed instance in its last second and not relayed, "
          f"{fixes_missed} missed while connected; reconnections {sum(len(w.disconnects) for w in dispatchers)}",
          flush=True)
    check(missed_connected == 0, "no event missing from a connected dispatcher stream")
    check(fixes_missed == 0, "no fix missing from a connected dispatcher stream")
    check(all(w.connected and w.connected[-1][1] - w.connected[-1][0] > 5 for w in dispatchers),
          "every dispatcher stream is connected again after the kill")


def nginx_figures(nginx):
    """What nginx did: requests it passed to the other instance after a failed connection, and its own errors."""
    lines = open(os.path.join(nginx.directory, "access.log")).read().splitlines()
    passed_on = sum(1 for line in lines if ", " in line.split('"')[1])
    answered = Counter(line.split()[2] for line in lines)
    print(f"     nginx: {len(lines)} requests logged, {passed_on} passed on to the other instance after a failed "
          f"connection, answers {dict(sorted(answered.items()))}", flush=True)
