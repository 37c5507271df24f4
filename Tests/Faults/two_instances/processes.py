"""The processes: two `logistics serve` instances on one PostgreSQL schema, and a Debian nginx in front of them (a
generated configuration in a temporary directory, listening on a free localhost port)."""

import os
import shutil
import signal
import socket
import subprocess
import threading
import time

from .support import BINARY, DATABASE_URL, SECRET


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Instance:
    def __init__(self, name, schema, directory):
        self.name = name
        self.directory = os.path.join(directory, name)
        os.makedirs(self.directory)
        env = dict(os.environ, DATABASE_URL=DATABASE_URL, LOGISTICS_DATABASE_SCHEMA=schema,
                   LOGISTICS_JWT_SECRET=SECRET, LOGISTICS_TRUSTED_PROXIES="127.0.0.1",
                   LOGISTICS_RATE_LIMIT_ADDRESS="off", LOGISTICS_RATE_LIMIT_CALLER="off",
                   LOGISTICS_RATE_LIMIT_FIXES="off", LOG_LEVEL="warning")
        env.pop("LOGISTICS_MAP", None)
        self.log = open(os.path.join(self.directory, "stderr.log"), "w")
        self.process = subprocess.Popen([BINARY, "serve", "--port", "0", "--data-dir", self.directory],
                                        stdout=subprocess.PIPE, stderr=self.log, env=env, text=True)
        self.address = None
        deadline = time.time() + 60
        while time.time() < deadline and self.address is None:
            line = self.process.stdout.readline()
            if not line and self.process.poll() is not None:
                break
            if "listening on http://" in line:
                self.address = line.split("listening on http://", 1)[1].split()[0]
        if self.address is None:
            self.stop()
            raise RuntimeError(f"instance {name} did not start; see {self.log.name}")
        threading.Thread(target=lambda: [None for _ in self.process.stdout], daemon=True).start()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.log.close()


NGINX_CONFIG = """
daemon off;
master_process on;
worker_processes 1;
{user}
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format upstreams '$request_method $uri $status "$upstream_addr" "$upstream_status" $request_time';
    access_log {dir}/access.log upstreams;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;

    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ''      close;
    }}

    upstream logistics {{
        # One failed connection takes an instance out for 10 s; the survivor takes everything meanwhile.
        server {a} max_fails=1 fail_timeout=10s;
        server {b} max_fails=1 fail_timeout=10s;
    }}

    server {{
        listen 127.0.0.1:{port};
        client_max_body_size 11m;
        location / {{
            proxy_pass http://logistics;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_read_timeout 90s;
            proxy_send_timeout 90s;
            proxy_connect_timeout 2s;
            # A refused or failed connection goes to the other instance. nginx never passes on a POST or PATCH
            # that already reached an instance (non_idempotent is not set): the client retries those with its
            # Idempotency-Key or eventId.
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries 2;
            add_header X-Upstream $upstream_addr always;
        }}
    }}
}}
"""


class Nginx:
    def __init__(self, directory, upstreams):
        self.directory = os.path.join(directory, "nginx")
        os.makedirs(self.directory)
        self.port = free_port()
        config = os.path.join(self.directory, "nginx.conf")
        with open(config, "w") as file:
            file.write(NGINX_CONFIG.format(
                dir=self.directory, port=self.port, a=upstreams[0], b=upstreams[1],
                user="user root;" if os.geteuid() == 0 else ""))
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        self.process = subprocess.Popen([binary, "-p", self.directory, "-c", config, "-e", "stderr"],
                                        stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.directory,
                                                                                             "stderr.log"), "w"))
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.05)
        else:
            pass
        if self.process.poll() is not None:
            raise RuntimeError("nginx did not start: " + open(os.path.join(self.directory, "stderr.log")).read())
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
