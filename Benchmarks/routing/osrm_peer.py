#!/usr/bin/env python3
"""Routes over HTTP, ours against OSRM on the same machine and the same pairs.

OSRM comes from PyPI: the `osrm-bindings` wheel carries standalone osrm-extract, osrm-contract and osrm-routed
binaries (glibc and libstdc++ only) with OSRM's profiles. The wheel is for CPython 3.12, so it is fetched with
`pip download --python-version 3.12` and unpacked, never installed: nothing imports it. This script prepares the map
with the car profile and contraction hierarchies, starts osrm-routed on localhost, runs
`logistics-bench routing --osrm HOST:PORT`, which sends every pair to both servers in turns, and stops OSRM.

    swift build -c release --package-path Benchmarks --product logistics-bench
    python3 Benchmarks/routing/osrm_peer.py                      # release build, 4,000 requests, 3 rounds
    python3 Benchmarks/routing/osrm_peer.py --quick --bench Benchmarks/.build/debug/logistics-bench   # CI

The profiles differ: OSRM's car against our motorcycle (what riders use); both answer with every step, its
maneuver and the full geometry as polyline6.
"""

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Pinned: another OSRM is another peer; bump it on purpose.
OSRM_WHEEL_VERSION = "26.10.0"


class PeerError(Exception):
    """A failure to fetch, prepare or start OSRM, printed without a traceback."""


def say(message):
    print(f"osrm-peer: {message}", flush=True)


def fetch_osrm(cache):
    """The unpacked wheel's directory, downloaded once per cache."""
    unpacked = os.path.join(cache, f"osrm-bindings-{OSRM_WHEEL_VERSION}")
    if os.path.isfile(os.path.join(unpacked, "osrm", "bin", "osrm-routed")):
        return unpacked
    downloads = os.path.join(cache, "wheels")
    os.makedirs(downloads, exist_ok=True)
    say(f"downloading osrm-bindings {OSRM_WHEEL_VERSION} from PyPI (about 20 MB)")
    command = [sys.executable, "-m", "pip", "download", "-q", f"osrm-bindings=={OSRM_WHEEL_VERSION}",
               "--only-binary", ":all:", "--no-deps", "--python-version", "3.12",
               "--platform", "manylinux_2_28_x86_64", "-d", downloads]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise PeerError(f"pip could not download osrm-bindings:\n{result.stderr.strip()[-2000:]}")
    wheels = [name for name in os.listdir(downloads) if name.startswith(f"osrm_bindings-{OSRM_WHEEL_VERSION}-")]
    if not wheels:
        raise PeerError(f"no osrm-bindings {OSRM_WHEEL_VERSION} wheel in {downloads} after the download")
    partial = unpacked + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    with zipfile.ZipFile(os.path.join(downloads, wheels[0])) as wheel:
        wheel.extractall(partial)
    for name in os.listdir(os.path.join(partial, "osrm", "bin")):
        path = os.path.join(partial, "osrm", "bin", name)
        os.chmod(path, 0o755)  # zip files do not keep the executable bit
    os.replace(partial, unpacked)
    return unpacked


def prepare(osrm, map_path, work):
    """Extract and contract the map with the car profile: the `.osrm` base name osrm-routed serves."""
    base = os.path.join(work, "map.osm.pbf")
    shutil.copyfile(map_path, base)
    binaries = os.path.join(osrm, "osrm", "bin")
    profile = os.path.join(osrm, "osrm", "share", "profiles", "car.lua")
    for step, command in [("extract", [os.path.join(binaries, "osrm-extract"), "-p", profile, base]),
                          ("contract", [os.path.join(binaries, "osrm-contract"), os.path.join(work, "map.osrm")])]:
        started = time.monotonic()
        result = subprocess.run(command, cwd=work, capture_output=True, text=True)
        if result.returncode != 0:
            raise PeerError(f"osrm-{step} failed:\n{(result.stdout + result.stderr).strip()[-2000:]}")
        say(f"osrm-{step} {os.path.basename(map_path)}: {time.monotonic() - started:.2f} s")
    return os.path.join(work, "map.osrm")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_routed(osrm, prepared, log):
    port = free_port()
    command = [os.path.join(osrm, "osrm", "bin", "osrm-routed"), "--algorithm", "ch", "-l", "WARNING",
               "-i", "127.0.0.1", "-p", str(port), prepared]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise PeerError(f"osrm-routed exited with status {process.returncode}; its log is {log.name}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/nearest/v1/driving/7.42,43.73", timeout=2):
                return process, port
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.2)
    process.kill()
    raise PeerError(f"osrm-routed did not answer within 30 s; its log is {log.name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", default=os.path.join(ROOT, "Benchmarks", ".build", "release", "logistics-bench"))
    parser.add_argument("--map", default=os.path.join(ROOT, "Maps", "monaco.osm.pbf"))
    parser.add_argument("--requests", type=int, default=4000, help="route requests per round and client count")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per client count, on each server")
    parser.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "logistics-bench"),
                        help="where the OSRM wheel is kept between runs")
    parser.add_argument("--quick", action="store_true",
                        help="600 requests, one round: shows the harness works (CI), not figures")
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.requests, arguments.rounds = 600, 1
    if not (os.path.isfile(arguments.bench) and os.access(arguments.bench, os.X_OK)):
        raise PeerError(f"no bench at {arguments.bench}: build it (swift build -c release --package-path Benchmarks "
                        "--product logistics-bench) or pass --bench")
    if not os.path.isfile(arguments.map):
        raise PeerError(f"no map at {arguments.map}")
    osrm = fetch_osrm(arguments.cache)
    work = tempfile.mkdtemp(prefix="logistics-osrm-peer-")
    try:
        prepared = prepare(osrm, arguments.map, work)
        with open(os.path.join(work, "osrm-routed.log"), "w") as log:
            process, port = start_routed(osrm, prepared, log)
            say(f"osrm-routed {OSRM_WHEEL_VERSION} (car profile, CH) on 127.0.0.1:{port}")
            try:
                # The in-process CH and grid parts are measured elsewhere: only the HTTP comparison runs here.
                command = [arguments.bench, "routing", "--map", arguments.map, "--grid-side", "0",
                           "--pairs", "100", "--dijkstra-pairs", "10", "--api-requests", str(arguments.requests),
                           "--api-rounds", str(arguments.rounds), "--osrm", f"127.0.0.1:{port}"]
                status = subprocess.run(command, timeout=1800).returncode
            finally:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        return status
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except PeerError as error:
        print(f"osrm-peer: {error}", file=sys.stderr)
        sys.exit(1)
    except subprocess.TimeoutExpired:
        print("osrm-peer: the bench did not finish within 30 minutes", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
