"""The sockets through nginx: customer tracking sockets that reconnect and resume like the tracking page, and
dispatcher streams that reconnect when cut."""

import json
import threading
import time

import websocket

from .support import parse_time


class Follower(threading.Thread):
    """A customer tracking socket that reconnects and resumes like the tracking page: `resumeFrom` with the last seq
    and the snapshot's stream."""

    def __init__(self, nginx, order, token, label):
        super().__init__(daemon=True)
        self.url = f"{nginx.ws}/api/v1/customer/orders/{order['orderId']}/tracking"
        self.order, self.token, self.label = order, token, label
        self.locations = set()       # recordedAt of every location message
        self.snapshots = []          # (received at, rider recordedAt or None, status, stream, seq)
        self.statuses = []
        self.gaps = []
        self.stream, self.seq = None, None
        self.connections = 0
        self.disconnects = []        # (at, instance it was on)
        self.reconnected_at = []     # when the resync or replay after a reconnection arrived
        self.resyncs = 0
        self.replays = 0
        self.ended = False
        self.instance = None
        self.first_snapshot_at = None
        self.error = None

    def run(self):
        try:
            while not self.ended and not self.finished():
                self.follow_once()
        except Exception as error:  # noqa: BLE001
            self.error = error

    def finished(self):
        return getattr(self, "stop_at", None) is not None and time.time() > self.stop_at

    def follow_once(self):
        resume = (self.stream, self.seq) if self.stream else None
        deadline = time.time() + 20
        while True:
            try:
                ws = websocket.create_connection(self.url, subprotocols=["bearer", self.token], timeout=5,
                                                 header=[])
                break
            except Exception:  # noqa: BLE001
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        self.connections += 1
        self.instance = (ws.getheaders() or {}).get("x-upstream")
        ws.settimeout(0.5)
        awaiting_resume, resynced = resume is not None, False
        if resume:
            ws.send(json.dumps({"resumeFrom": resume[1], "stream": resume[0]}))
        try:
            while not self.finished():
                try:
                    text = ws.recv()
                except websocket.WebSocketTimeoutException:
                    continue
                if not text:
                    raise websocket.WebSocketConnectionClosedException()
                message = json.loads(text)
                kind = message.get("type")
                if kind == "snapshot":
                    if self.stream == message["stream"] and message["seq"] < self.seq:
                        self.gaps.append(f"snapshot went back from {self.seq} to {message['seq']}")
                    self.stream, self.seq = message["stream"], message["seq"]
                    rider = message.get("rider")
                    position_at = parse_time(rider["recordedAt"]) if rider else None
                    self.snapshots.append((time.time(), position_at, message["status"], message["stream"],
                                           message["seq"]))
                    self.statuses.append(message["status"])
                    self.first_snapshot_at = self.first_snapshot_at or time.time()
                    if awaiting_resume and resynced:
                        awaiting_resume = False
                        self.reconnected_at.append(time.time())
                    continue
                if kind == "resync":
                    self.resyncs += 1
                    resynced = True
                    continue
                if kind == "error":
                    raise RuntimeError(f"{self.label}: error message {message}")
                seq = message["seq"]
                if seq <= self.seq:
                    continue  # a replay of what the snapshot covered
                if seq != self.seq + 1:
                    self.gaps.append(f"{self.label}: seq {self.seq} then {seq} on stream {self.stream}")
                self.seq = seq
                if awaiting_resume and resume[0] == self.stream:
                    awaiting_resume = False
                    self.replays += 1
                    self.reconnected_at.append(time.time())
                if kind == "location":
                    self.locations.add(parse_time(message["recordedAt"]))
                elif kind == "status":
                    self.statuses.append(message["status"])
                elif kind == "ended":
                    self.ended = True
                    return
        except (websocket.WebSocketConnectionClosedException, ConnectionError, OSError) as error:
            if self.ended:
                return
            self.disconnects.append((time.time(), self.instance, repr(error)[:80]))
        finally:
            try:
                ws.close()
            except Exception:  # noqa: BLE001
                pass


class Dispatcher(threading.Thread):
    """A dispatcher stream; reconnects when cut. Events missed while it was away are in the order event log."""

    def __init__(self, nginx, token, label):
        super().__init__(daemon=True)
        self.url = f"{nginx.ws}/api/v1/dispatch/stream"
        self.token, self.label = token, label
        self.events = {}             # event id -> received at
        self.fixes = set()           # (rider id, recordedAt)
        self.connected = []          # [start, end) of every connection, from its `ready`
        self.disconnects = []
        self.instance = None
        self.error = None
        self.stop_at = None

    def run(self):
        try:
            while self.stop_at is None or time.time() < self.stop_at:
                self.watch_once()
        except Exception as error:  # noqa: BLE001
            self.error = error

    def watch_once(self):
        deadline = time.time() + 20
        while True:
            try:
                ws = websocket.create_connection(self.url, subprotocols=["bearer", self.token], timeout=5)
                break
            except Exception:  # noqa: BLE001
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        self.instance = (ws.getheaders() or {}).get("x-upstream")
        ws.settimeout(0.5)
        start = None
        try:
            while self.stop_at is None or time.time() < self.stop_at:
                try:
                    text = ws.recv()
                except websocket.WebSocketTimeoutException:
                    continue
                if not text:
                    raise websocket.WebSocketConnectionClosedException()
                message = json.loads(text)
                if message.get("type") == "ready":
                    start = time.time()
                elif message.get("type") == "event":
                    self.events.setdefault(message["event"]["id"].lower(), time.time())
                elif message.get("type") == "riderLocation":
                    self.fixes.add((message["riderId"], parse_time(message["recordedAt"])))
        except (websocket.WebSocketConnectionClosedException, ConnectionError, OSError) as error:
            self.disconnects.append((time.time(), self.instance, repr(error)[:80]))
        finally:
            if start is not None:
                self.connected.append((start, time.time()))
            try:
                ws.close()
            except Exception:  # noqa: BLE001
                pass
