"""A tiny SMS gateway on localhost for the server's `LOGISTICS_SMS_PROVIDER=http`: it takes the server's POST of
{"to", "body"} as JSON, keeps every message, answers 200; the test reads the codes and invitations from it as a
person reads them on their phone."""

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .page import wait

CODE = re.compile(r"your sign-in code is (\d{6})")


class Gateway:
    def __init__(self):
        self.messages = []
        self.lock = threading.Lock()
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    message = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    message = {}
                with gateway.lock:
                    gateway.messages.append({"to": message.get("to"), "body": message.get("body") or ""})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/sms"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def settings(self):
        """The server's environment for sending its text messages here."""
        return {"LOGISTICS_SMS_PROVIDER": "http", "LOGISTICS_SMS_HTTP_URL": self.url}

    def to(self, phone):
        with self.lock:
            return [message for message in self.messages if message["to"] == phone]

    def wait_message(self, what, phone, after=0, pattern=None, timeout=15):
        """The first message to `phone` past the `after` first ones (matching `pattern`), else None."""
        return wait(what, lambda: next((message for message in self.to(phone)[after:]
                                        if pattern is None or re.search(pattern, message["body"])), None), timeout)

    def wait_code(self, what, phone, after=0, timeout=15):
        """The message with a sign-in code and its six digits, else (None, None)."""
        message = self.wait_message(what, phone, after, CODE, timeout)
        return (message, CODE.search(message["body"]).group(1)) if message else (None, None)

    def stop(self):
        self.http.shutdown()
        self.http.server_close()
