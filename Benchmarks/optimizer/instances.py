"""Benchmark instances in VROOM's input format, built on one shared pool of points and its travel-time matrix.

A pool holds at most 500 points (the depot, a few stores, then customers); each instance takes a seeded subset and
carries the sub-matrix for exactly the points it uses, so the three solvers all read the same integer durations.
The pool comes either from our server's `POST /api/v1/matrix` on Monaco or, with `--synthetic`, from random points
on a plane, so everything except our own solver can be exercised without the binary.
"""

import math
import random

MONACO = {"lat": (43.724, 43.752), "lon": (7.405, 7.440)}
SHIFT = (0, 8 * 3600)
JOB_SERVICE = 120
PICKUP_SERVICE = 60
STORES = 3
MAX_POOL = 500
FAMILIES = ("plain", "windows", "shipments")
PROFILE = "motorcycle"


class InstanceError(Exception):
    """An expected failure while building instances (server refused, not enough routable points)."""


def seconds(value):
    # Half-up rounding: Python's round() rounds halves to even, which would make the same road time differ by one
    # second depending on parity and is not what anyone reading the matrix expects.
    return int(math.floor(value + 0.5))


def pool_size(max_jobs):
    # Always the full 500 (one matrix request of 500 points takes seconds): an instance then depends only on its
    # family, size and seed, not on which other sizes were asked for in the same run.
    if max_jobs > MAX_POOL - 1 - STORES:
        raise InstanceError(f"{max_jobs} jobs need more than the {MAX_POOL} points a pool holds")
    return MAX_POOL


class Pool:
    def __init__(self, coordinates, durations, source, story=""):
        self.coordinates = coordinates
        self.durations = durations
        self.source = source
        self.story = story  # how the pool came about, for the log: requests made, points replaced


def synthetic_pool(count, seed):
    """Points in a 3 km square at 8 m/s with a few percent of asymmetry per direction: road matrices are not
    symmetric, and a solver or converter that transposes the matrix must not pass unnoticed."""
    rng = random.Random(f"synthetic-pool-{seed}")
    points = [(rng.uniform(0, 3000), rng.uniform(0, 3000)) for _ in range(count)]
    durations = []
    for i, (xa, ya) in enumerate(points):
        row = []
        for j, (xb, yb) in enumerate(points):
            if i == j:
                row.append(0)
                continue
            metres = math.hypot(xa - xb, ya - yb)
            row.append(seconds(metres / 8.0 * rng.uniform(0.95, 1.10)) + 10)
        durations.append(row)
    return Pool([{"x": x, "y": y} for x, y in points], durations, "synthetic", "random points, 8 m/s")


def _monaco_point(rng):
    return {"lat": round(rng.uniform(*MONACO["lat"]), 6), "lon": round(rng.uniform(*MONACO["lon"]), 6)}


def server_pool(server, count, seed, attempts=25):
    """Random Monaco points whose full matrix has no gaps.

    Points the server calls unroutable (422 naming `sources[i]`) are replaced in place; a point with null cells
    (no legal path to or from some other point, e.g. a one-way dead end) is dropped, those with the most nulls
    first, and the set is asked again with fresh points, since a replacement needs its own row and column.
    """
    rng = random.Random(f"monaco-pool-{seed}")
    points = [_monaco_point(rng) for _ in range(count)]
    off_road = no_path = 0
    for attempt in range(1, attempts + 1):
        status, body = server.matrix(points)
        if status == 422 and isinstance(body, dict) and body.get("fields"):
            bad = set()
            for field in body["fields"]:
                if field.startswith("sources[") and field.endswith("]"):
                    bad.add(int(field[len("sources["):-1]))
            if not bad:
                raise InstanceError(f"matrix request refused: {body}")
            for index in bad:
                points[index] = _monaco_point(rng)
            off_road += len(bad)
            continue
        if status != 200:
            raise InstanceError(f"POST /api/v1/matrix answered {status}: {str(body)[:400]}")
        durations = body.get("durations") if isinstance(body, dict) else None
        if not isinstance(durations, list) or len(durations) != len(points):
            raise InstanceError("POST /api/v1/matrix answered without a square durations matrix")
        alive = list(range(len(points)))
        while True:
            nulls = {i: 0 for i in alive}
            for i in alive:
                for j in alive:
                    if durations[i][j] is None:
                        nulls[i] += 1
                        nulls[j] += 1
            worst = max(alive, key=lambda i: nulls[i], default=None)
            if worst is None or nulls[worst] == 0:
                break
            alive.remove(worst)
        if len(alive) == len(points):
            matrix = [[seconds(durations[i][j]) for j in alive] for i in alive]
            return Pool(points, matrix, "monaco", f"{attempt} matrix request(s), {off_road} point(s) replaced as "
                                                  f"off the roads, {no_path} for missing paths")
        no_path += len(points) - len(alive)
        points = [points[i] for i in alive] + [_monaco_point(rng) for _ in range(len(points) - len(alive))]
    raise InstanceError(f"no gap-free matrix of {count} Monaco points after {attempts} requests")


def vehicles_for(jobs):
    # About ten stops a rider, as a shift of a last-mile rider runs: 50 -> 5, 100 -> 10, 200 -> 20, 400 -> 40.
    return max(1, jobs // 10)


def build(pool, family, jobs, seed):
    """One instance: VROOM input (without options) and the pool coordinates of its matrix indices."""
    if family not in FAMILIES:
        raise InstanceError(f"unknown family {family!r}; known: {', '.join(FAMILIES)}")
    rng = random.Random(f"{family}-{jobs}-{seed}")
    customers_needed = jobs
    available = len(pool.durations) - 1 - STORES
    if customers_needed > available:
        raise InstanceError(f"{family} with {jobs} jobs needs {customers_needed} customers; the pool has {available}")
    # Index 0 of the pool is the depot and 1..STORES the stores, the same in every instance, as one company's.
    customers = rng.sample(range(1 + STORES, len(pool.durations)), customers_needed)
    chosen = [0] + (list(range(1, 1 + STORES)) if family == "shipments" else []) + customers
    matrix = [[pool.durations[i][j] for j in chosen] for i in chosen]
    customer_index = list(range(len(chosen) - customers_needed, len(chosen)))
    depot = 0

    count = vehicles_for(jobs)
    vehicles = [{"id": k + 1, "start_index": depot, "end_index": depot,
                 # Capacities 12-15 keep total capacity at 1.2-1.5x the parcels, so capacity binds on routes
                 # without making a full assignment impossible.
                 "capacity": [rng.randint(12, 15)], "time_window": list(SHIFT)} for k in range(count)]

    plain_jobs = jobs if family != "shipments" else jobs - jobs // 2
    doc_jobs = []
    for k in range(plain_jobs):
        where = customer_index[k]
        job = {"id": k + 1, "location_index": where, "service": JOB_SERVICE, "delivery": [1]}
        if family == "windows":
            job["time_windows"] = [_window(rng, matrix, depot, where)]
        doc_jobs.append(job)
    shipments = []
    for k in range(jobs - plain_jobs):
        store = rng.randint(1, STORES)
        shipments.append({
            "amount": [1],
            "pickup": {"id": 100_001 + k, "location_index": store, "service": PICKUP_SERVICE},
            "delivery": {"id": 200_001 + k, "location_index": customer_index[plain_jobs + k],
                         "service": JOB_SERVICE}})
    doc = {"vehicles": vehicles, "jobs": doc_jobs, "matrices": {PROFILE: {"durations": matrix}}}
    if shipments:
        doc["shipments"] = shipments
    return {"name": f"{family}-{jobs}", "family": family, "jobs": jobs, "vehicles": count, "doc": doc,
            "coordinates": [pool.coordinates[i] for i in chosen], "source": pool.source}


def _window(rng, matrix, depot, where):
    """A 30-60 min window inside the shift that a rider leaving the depot at shift start can make and still get
    back in time; so every job is reachable on its own and only their combination is hard."""
    length = rng.randint(30 * 60, 60 * 60)
    earliest = matrix[depot][where]
    latest = SHIFT[1] - JOB_SERVICE - matrix[where][depot] - length
    start = rng.randint(earliest, max(earliest, latest))
    return [start, start + length]


def task_count(doc):
    """Tasks as the table counts them: a job is one, a shipment (pickup and delivery) is one."""
    return len(doc.get("jobs", [])) + len(doc.get("shipments", []))
