"""A second DevTools connection to the rider's browser: offline for the page and its service worker, requests held
in flight, answers lost on the way back, 503 answered in the server's place (what selenium cannot do)."""

import base64
import itertools
import json
import threading
import time
import urllib.request

import websocket


class DevTools:
    def __init__(self, driver):
        address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
        with urllib.request.urlopen(f"http://{address}/json/version", timeout=10) as response:
            url = json.load(response)["webSocketDebuggerUrl"]
        self.socket = websocket.create_connection(url, suppress_origin=True, timeout=None)
        self.ids = itertools.count(1)
        self.write = threading.Lock()
        self.replies = {}
        self.arrived = threading.Condition()
        self.sessions = {}
        self.offline = False
        self.holds = []
        self.held = []
        self.leaks = []
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()
        self.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True})

    def _post(self, method, params=None, session=None):
        message = {"id": next(self.ids), "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        with self.write:
            self.socket.send(json.dumps(message))
        return message["id"]

    def send(self, method, params=None, session=None, timeout=10):
        ident = self._post(method, params, session)
        with self.arrived:
            self.arrived.wait_for(lambda: ident in self.replies or self.closed, timeout)
            reply = self.replies.pop(ident, {})
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def _configure(self, session):
        """What every page and worker gets as it attaches: the current network state and held requests."""
        self._post("Network.enable", {}, session)
        if self.offline:
            self._post("Network.emulateNetworkConditions", self._conditions(), session)
        if self.holds or self.offline:
            self._post("Fetch.enable", {"patterns": self._patterns()}, session)

    def _conditions(self):
        return {"offline": self.offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}

    def _patterns(self):
        if self.offline:
            return [{"urlPattern": "*", "requestStage": "Request"}]
        return [{"urlPattern": f"*{rule['part']}*", "requestStage": rule["stage"]} for rule in self.holds]

    def _read(self):
        while True:
            try:
                message = json.loads(self.socket.recv())
            except Exception:
                with self.arrived:
                    self.closed = True
                    self.arrived.notify_all()
                return
            if "id" in message:
                with self.arrived:
                    self.replies[message["id"]] = message
                    self.arrived.notify_all()
                continue
            method, params = message.get("method"), message.get("params", {})
            try:
                if method == "Target.attachedToTarget":
                    session = params["sessionId"]
                    kind = params["targetInfo"]["type"]
                    if kind in ("page", "iframe", "service_worker", "worker", "shared_worker"):
                        self.sessions[session] = kind
                        self._configure(session)
                    if params.get("waitingForDebugger"):
                        self._post("Runtime.runIfWaitingForDebugger", {}, session)
                elif method == "Target.detachedFromTarget":
                    self.sessions.pop(params.get("sessionId"), None)
                elif method == "Fetch.requestPaused":
                    self._paused(message.get("sessionId"), params)
            except Exception:
                pass

    def _paused(self, session, params):
        """A request held by a rule: let it go after a while, fail it, or answer it in the server's place."""
        url, ident = params["request"]["url"], params["requestId"]
        if self.offline:
            self.leaks.append(url)
            self._post("Fetch.failRequest", {"requestId": ident, "errorReason": "InternetDisconnected"}, session)
            return
        stage = "Response" if "responseStatusCode" in params or "responseErrorReason" in params else "Request"
        rule = next((rule for rule in self.holds if rule["part"] in url and rule["stage"] == stage
                     and rule["times"] != 0), None)
        if rule is None:
            self._post("Fetch.continueRequest", {"requestId": ident}, session)
            return
        rule["times"] -= 1
        self.held.append((url, params["request"]["method"], stage, rule["action"]))
        if rule["action"] == "delay":
            threading.Timer(rule["seconds"], self._post, ("Fetch.continueRequest", {"requestId": ident},
                                                          session)).start()
        elif rule["action"] == "drop":
            # The server did its work; its answer is lost on the way back (a connection reset).
            self._post("Fetch.failRequest", {"requestId": ident, "errorReason": "ConnectionReset"}, session)
        else:
            body = json.dumps({"type": "about:blank", "title": "Service unavailable", "status": rule["action"]})
            self._post("Fetch.fulfillRequest", {
                "requestId": ident, "responseCode": rule["action"],
                "responseHeaders": [{"name": "Content-Type", "value": "application/problem+json"},
                                    {"name": "Retry-After", "value": "1"}],
                "body": base64.b64encode(body.encode()).decode()}, session)

    def set_offline(self, offline):
        """Offline as DevTools makes it, for the page and its service worker. Chromium was seen to drop the
        emulation now and then (an 'online' event in the page after a second or two, with requests going out), so
        while offline every request that still reaches the network layer is failed as well (counted in `leaks`),
        and the emulation is set again every 200 ms."""
        self.offline = offline
        self.leaks = []
        for session in list(self.sessions):
            try:
                self.send("Network.emulateNetworkConditions", self._conditions(), session)
                if offline or self.holds:
                    self.send("Fetch.enable", {"patterns": self._patterns()}, session)
                else:
                    self.send("Fetch.disable", {}, session)
            except RuntimeError:
                pass
        if offline:
            def keep():
                while self.offline and not self.closed:
                    for session in list(self.sessions):
                        try:
                            self._post("Network.emulateNetworkConditions", self._conditions(), session)
                        except Exception:
                            pass
                    time.sleep(0.2)
            threading.Thread(target=keep, daemon=True).start()

    def hold(self, part, seconds):
        """Requests whose URL contains `part` wait `seconds` in the browser before they leave (a slow network)."""
        self.intercept({"part": part, "stage": "Request", "action": "delay", "seconds": seconds, "times": -1})

    def intercept(self, *rules):
        """Rules for requests whose URL contains a part: at the Request stage "delay" (seconds) or an HTTP status
        answered in the server's place; at the Response stage "drop" (the server's answer is lost). `times` rules
        apply that many times (-1: always); other requests go on untouched."""
        self.holds = list(rules)
        for session in list(self.sessions):
            try:
                self.send("Fetch.enable", {"patterns": self._patterns()}, session)
            except RuntimeError:
                pass

    def release(self):
        self.holds = []
        for session in list(self.sessions):
            try:
                if self.offline:
                    self.send("Fetch.enable", {"patterns": self._patterns()}, session)
                else:
                    self.send("Fetch.disable", {}, session)
            except RuntimeError:
                pass

    def service_workers(self):
        return [info for info in self.send("Target.getTargets")["targetInfos"] if info["type"] == "service_worker"]

    def close(self):
        try:
            self.socket.close()
        except Exception:
            pass
