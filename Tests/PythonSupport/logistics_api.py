"""What every Python test of the server shares: one way to send a request to it and read the answer, and tokens
signed like `logistics token`. Used by the browser, crash, two-instance and fuzz tests.

Errors are ordinary exceptions (`Refused`, `Unreachable`), never SystemExit: a scenario running in a thread of
its own reports them as failures instead of ending silently. Only localhost is contacted.
"""

import base64
import hashlib
import hmac
import json
import socket
import time
import urllib.error
import urllib.request

ISSUER, AUDIENCE = "rider-logistics", "rider-logistics-api"


class Refused(AssertionError):
    """The server answered with a status the caller did not expect."""

    def __init__(self, method, path, status, text):
        super().__init__(f"{method} {path} answered {status}: {text[:300]}")
        self.status, self.text = status, text


class Unreachable(ConnectionError):
    """No answer: the connection was refused, cut or timed out."""


def request(base, method, path, token=None, body=None, headers=None, timeout=30):
    """One request; (status, text, headers). Raises Unreachable when no answer came."""
    outgoing = urllib.request.Request(base + path, method=method)
    if token:
        outgoing.add_header("Authorization", "Bearer " + token)
    for name, value in (headers or {}).items():
        outgoing.add_header(name, value)
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        outgoing.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(outgoing, data, timeout=timeout) as response:
            return response.status, response.read().decode(), response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), error.headers
    except (urllib.error.URLError, ConnectionError, TimeoutError, socket.timeout, OSError) as error:
        raise Unreachable(f"{method} {path}: {error}") from error


def document(text):
    """An answer's JSON, or the text itself when it is not JSON (an empty answer is {})."""
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return text


def call(base, method, path, token=None, body=None, expect=(200, 201, 202), headers=None, timeout=30):
    """One request whose status must be in `expect`; the answer's JSON. Raises Refused otherwise."""
    status, text, _ = request(base, method, path, token, body, headers, timeout)
    if status not in expect:
        raise Refused(method, path, status, text)
    return document(text)


def mint(role, subject, secret, name=None, ttl=3600):
    """A token signed like `logistics token` (HS256 with `secret`); a negative ttl makes an expired one."""
    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    issued = int(time.time())
    claims = {"sub": subject, "role": role, "iat": min(issued, issued + ttl - 60), "exp": issued + ttl,
              "iss": ISSUER, "aud": AUDIENCE}
    if name:
        claims["name"] = name
    head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + b64(json.dumps(claims).encode())
    return head + "." + b64(hmac.new(secret.encode(), head.encode(), hashlib.sha256).digest())
