"""The peers: VROOM through pyvroom and PyVRP, each fed the instance's own integer matrix and answering in VROOM's
output shape, so one checker and one cost definition (travel seconds, depot legs included) cover all three."""

import copy
import datetime
import json
import os
import tempfile
import time


class PeerUnavailable(Exception):
    """The package is missing or cannot express the instance; the peer is skipped with this reason."""


def versions():
    found = {}
    for name, module in (("pyvroom", "vroom"), ("pyvrp", "pyvrp")):
        try:
            from importlib.metadata import version
            found[name] = version(name)
        except Exception:
            found[name] = None
        try:
            __import__(module)
        except Exception:
            found[name] = None
    return found


def missing_packages():
    return [name for name, version in versions().items() if version is None]


# VROOM's command line defaults to exploration level 5 (`vroom --help`); pyvroom's solve() has no default, so the
# CLI's is written out here to stay at "VROOM's own default".
VROOM_EXPLORATION = 5


def solve_vroom(doc, threads=1, timeout=None):
    """Returns (solution, wall seconds). The instance goes through VROOM's own JSON reader, so what VROOM solves is
    the very document sent to our server; only `profile` is added, since VROOM matches a vehicle to its matrix by
    profile name and defaults to "car" while the document names the matrix "motorcycle"."""
    try:
        import vroom
    except ImportError as error:
        raise PeerUnavailable(f"pyvroom is not installed ({error}); python3 -m pip install pyvroom")
    profile = next(iter(doc["matrices"]))
    problem = copy.deepcopy(doc)
    for vehicle in problem["vehicles"]:
        vehicle["profile"] = profile
    problem.pop("options", None)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(problem, handle)
    try:
        started = time.perf_counter()
        instance = vroom.Input.from_json(handle.name)
        solution = instance.solve(exploration_level=VROOM_EXPLORATION, nb_threads=threads,
                                  timeout=None if timeout is None else datetime.timedelta(seconds=timeout))
        wall = time.perf_counter() - started
    finally:
        os.unlink(handle.name)
    return solution.to_dict(), wall


def _window(windows, what):
    # PyVRP has one window per client or shipment step; rather than pick one of several and compare different
    # problems, such an instance is not given to PyVRP at all.
    if not windows:
        return {}
    if len(windows) > 1:
        raise PeerUnavailable(f"PyVRP takes one time window per stop; {what} has {len(windows)}")
    return {"tw_early": windows[0][0], "tw_late": windows[0][1]}


def solve_pyvrp(doc, budget, seed, coordinates=None):
    """Returns (solution in VROOM's shape, wall seconds, PyVRP's own feasibility verdict)."""
    try:
        import numpy
        import pyvrp
        from pyvrp.stop import MaxRuntime
    except ImportError as error:
        raise PeerUnavailable(f"pyvrp is not installed ({error}); python3 -m pip install pyvrp")
    if doc.get("shipments") and not hasattr(pyvrp, "Shipment"):
        raise PeerUnavailable("this pyvrp has no pickup-and-delivery shipments (they came in 0.14)")
    started = time.perf_counter()
    matrix = numpy.asarray(next(iter(doc["matrices"].values()))["durations"], dtype=numpy.int64)
    # Each matrix index is a PyVRP Location; clients, depots and shipment steps point at them by index, which is
    # how several stops share a place. Coordinates are only labels here: every solver is given the matrix.
    points = coordinates or [{}] * len(matrix)
    locations = [pyvrp.Location(x=float(p.get("lon", p.get("x", 0))), y=float(p.get("lat", p.get("y", 0))))
                 for p in points]

    depot_of = {}
    for vehicle in doc["vehicles"]:
        for key in ("start_index", "end_index"):
            if vehicle.get(key) is None:
                raise PeerUnavailable("PyVRP routes start and end at depots; a vehicle without start or end")
            depot_of.setdefault(vehicle[key], len(depot_of))
    depots = [pyvrp.Depot(location=where) for where in depot_of]

    # Vehicles that differ in nothing PyVRP sees are one vehicle type; its routes are handed back to VROOM vehicle
    # ids of that type in order.
    types, ids_of_type = {}, []
    for vehicle in doc["vehicles"]:
        shift = vehicle.get("time_window") or [0, None]
        key = (tuple(vehicle.get("capacity", [])), vehicle["start_index"], vehicle["end_index"], tuple(shift))
        if key not in types:
            types[key] = len(types)
            ids_of_type.append([])
        ids_of_type[types[key]].append(vehicle["id"])
    vehicle_types = []
    for (capacity, start, end, shift), number in types.items():
        window = {"tw_early": shift[0]} | ({} if shift[1] is None else {"tw_late": shift[1]})
        vehicle_types.append(pyvrp.VehicleType(
            num_available=len(ids_of_type[number]), capacity=list(capacity), start_depot=depot_of[start],
            end_depot=depot_of[end], unit_distance_cost=1, unit_duration_cost=0, **window))

    dimensions = len(doc["vehicles"][0].get("capacity", []))
    zero = [0] * dimensions
    clients = [pyvrp.Client(location=job["location_index"], delivery=job.get("delivery") or zero,
                            pickup=job.get("pickup") or zero, service_duration=job.get("service", 0),
                            **_window(job.get("time_windows"), f"job {job['id']}"))
               for job in doc.get("jobs", [])]
    shipments = []
    for shipment in doc.get("shipments", []):
        pickup, delivery = shipment["pickup"], shipment["delivery"]
        early_late = {f"pickup_{k}": v for k, v in _window(pickup.get("time_windows"), f"pickup {pickup['id']}")
                      .items()}
        early_late |= {f"delivery_{k}": v for k, v in
                       _window(delivery.get("time_windows"), f"delivery {delivery['id']}").items()}
        shipments.append(pyvrp.Shipment(
            pickup_location=pickup["location_index"], delivery_location=delivery["location_index"],
            pickup_service_duration=pickup.get("service", 0), delivery_service_duration=delivery.get("service", 0),
            amount=shipment.get("amount") or zero, **early_late))
    # Distance is the duration matrix at cost 1 per unit, so PyVRP's objective is travel seconds like VROOM's.
    data = pyvrp.ProblemData(locations=locations, clients=clients, depots=depots, vehicle_types=vehicle_types,
                             distance_matrices=[matrix], duration_matrices=[matrix], shipments=shipments)
    result = pyvrp.solve(data, stop=MaxRuntime(budget), seed=seed, collect_stats=False, display=False)
    wall = time.perf_counter() - started
    return _to_vroom(doc, result.best, ids_of_type, pyvrp), wall, result.is_feasible()


def _to_vroom(doc, best, ids_of_type, pyvrp):
    """PyVRP's routes and own schedule, written as VROOM steps. Times are PyVRP's, not recomputed, so the checker
    judges what PyVRP claims: arrival = service start - wait (+ any time warp, which then shows as a late start)."""
    jobs = doc.get("jobs", [])
    shipments = doc.get("shipments", [])
    remaining = [list(ids) for ids in ids_of_type]
    vehicles = {vehicle["id"]: vehicle for vehicle in doc["vehicles"]}
    routes = []
    for route in best.routes():
        vehicle_id = remaining[route.vehicle_type()].pop(0)
        vehicle = vehicles[vehicle_id]
        schedule = route.schedule()
        steps = []
        for position, activity in enumerate(schedule):
            arrival = activity.start_time - activity.wait_duration + activity.time_warp
            step = {"arrival": arrival, "waiting_time": activity.wait_duration, "service": activity.duration}
            if activity.type == pyvrp.ActivityType.DEPOT:
                if position == 0:
                    step.update(type="start", location_index=vehicle["start_index"], arrival=activity.start_time)
                elif position == len(schedule) - 1:
                    step.update(type="end", location_index=vehicle["end_index"])
                else:
                    raise PeerUnavailable("PyVRP returned a reload depot visit, which VROOM's shape cannot hold")
            elif activity.type == pyvrp.ActivityType.CLIENT:
                job = jobs[activity.idx]
                step.update(type="job", id=job["id"], location_index=job["location_index"])
            else:
                part = "pickup" if activity.type == pyvrp.ActivityType.PICKUP else "delivery"
                task = shipments[activity.idx][part]
                step.update(type=part, id=task["id"], location_index=task["location_index"])
            steps.append(step)
        routes.append({"vehicle": vehicle_id, "cost": route.distance(), "steps": steps})
    unassigned = []
    for activity in best.unplanned():
        if activity.type == pyvrp.ActivityType.CLIENT:
            unassigned.append({"id": jobs[activity.idx]["id"], "type": "job"})
        elif activity.type in (pyvrp.ActivityType.PICKUP, pyvrp.ActivityType.DELIVERY):
            part = "pickup" if activity.type == pyvrp.ActivityType.PICKUP else "delivery"
            unassigned.append({"id": shipments[activity.idx][part]["id"], "type": part})
    # A shipment may be listed by one or both halves; VROOM lists both, and so does this.
    listed = {(entry["type"], entry["id"]) for entry in unassigned}
    for shipment in shipments:
        halves = [("pickup", shipment["pickup"]["id"]), ("delivery", shipment["delivery"]["id"])]
        if any(half in listed for half in halves):
            unassigned += [{"type": t, "id": i} for t, i in halves if (t, i) not in listed]
    return {"code": 0, "routes": routes, "unassigned": unassigned,
            "summary": {"cost": best.distance(), "routes": len(routes), "unassigned": len(unassigned)}}
