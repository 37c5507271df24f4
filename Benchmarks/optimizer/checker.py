"""An independent feasibility check of a VROOM-shaped solution against the VROOM-format instance it answers.

It reads only the instance and the solution's routes, never a solver's own verdict, so VROOM, PyVRP (converted to
the same shape) and our server are held to one standard. `python3 checker.py` runs its self-test.
"""

import copy
import sys

TOLERANCE = 1  # seconds a time may differ by: solvers that schedule in fractions round once per step


def _tasks(doc):
    """(type, id) -> what the checker needs of each stop; shipments link pickup and delivery by a shared key."""
    tasks = {}
    for job in doc.get("jobs", []):
        tasks[("job", job["id"])] = {
            "location": job["location_index"], "service": job.get("service", 0),
            "windows": job.get("time_windows") or [], "delivery": job.get("delivery"), "pickup": job.get("pickup"),
            "shipment": None}
    for number, shipment in enumerate(doc.get("shipments", [])):
        for part in ("pickup", "delivery"):
            step = shipment[part]
            tasks[(part, step["id"])] = {
                "location": step["location_index"], "service": step.get("service", 0),
                "windows": step.get("time_windows") or [], "amount": shipment.get("amount"), "shipment": number}
    return tasks


def _add(load, amount, sign):
    if amount:
        for k, value in enumerate(amount):
            load[k] += sign * value


def _service_start(arrival, windows):
    """The earliest moment service may begin: VROOM and PyVRP both wait for the first window not yet over."""
    if not windows:
        return arrival
    for start, end in sorted(windows):
        if arrival <= end:
            return max(arrival, start)
    return None


def check(doc, solution, tolerance=TOLERANCE):
    """Returns (errors, recomputed cost, unassigned task count). An empty error list means feasible."""
    errors = []
    matrix = next(iter(doc["matrices"].values()))["durations"]
    vehicles = {vehicle["id"]: vehicle for vehicle in doc["vehicles"]}
    tasks = _tasks(doc)
    dimensions = len(doc["vehicles"][0].get("capacity", [])) if doc["vehicles"] else 0
    if solution.get("code", 0) != 0:
        errors.append(f"solution code is {solution.get('code')}, not 0")

    seen = {}  # (type, id) -> (route number, position)
    used_vehicles = set()
    total = 0
    reported_total = 0
    for number, route in enumerate(solution.get("routes", [])):
        where = f"route {number} (vehicle {route.get('vehicle')})"
        vehicle = vehicles.get(route.get("vehicle"))
        if vehicle is None:
            errors.append(f"{where}: no such vehicle")
            continue
        if route["vehicle"] in used_vehicles:
            errors.append(f"{where}: vehicle used by two routes")
        used_vehicles.add(route["vehicle"])
        steps = route.get("steps", [])
        if len(steps) < 2 or steps[0].get("type") != "start" or steps[-1].get("type") != "end":
            errors.append(f"{where}: steps must run from a start to an end")
            continue
        for step, key in ((steps[0], "start_index"), (steps[-1], "end_index")):
            if step.get("location_index") != vehicle.get(key):
                errors.append(f"{where}: {step['type']} at {step.get('location_index')}, vehicle's {key} is "
                              f"{vehicle.get(key)}")

        # VROOM's load semantics: a route leaves loaded with every parcel its jobs deliver; a job's pickup and a
        # shipment's pickup add, a job's delivery and a shipment's delivery remove.
        load = [0] * dimensions
        for step in steps[1:-1]:
            task = tasks.get((step.get("type"), step.get("id")))
            if task and task["shipment"] is None:
                _add(load, task["delivery"], +1)
        capacity = vehicle.get("capacity", [0] * dimensions)
        shift = vehicle.get("time_window") or [0, float("inf")]

        arrival = steps[0].get("arrival", 0)
        if arrival < shift[0]:
            errors.append(f"{where}: starts at {arrival}, before the vehicle's window {shift}")
        departure = arrival  # the start has no service
        location = steps[0].get("location_index")
        travel = 0
        for position, step in enumerate(steps):
            at = f"{where} step {position} ({step.get('type')} {step.get('id', '')})".rstrip()
            if position > 0:
                if step.get("type") in ("start",) or (step.get("type") == "end" and position != len(steps) - 1):
                    errors.append(f"{at}: start or end in the middle of a route")
                    break
                task = tasks.get((step.get("type"), step.get("id"))) if step.get("type") != "end" else None
                if step.get("type") != "end":
                    if task is None:
                        errors.append(f"{at}: no such {step.get('type')} in the instance")
                        continue
                    key = (step["type"], step["id"])
                    if key in seen:
                        errors.append(f"{at}: already served in route {seen[key][0]}")
                    seen[key] = (number, position)
                    target = task["location"]
                    if step.get("location_index", target) != target:
                        errors.append(f"{at}: at location {step.get('location_index')}, the task is at {target}")
                else:
                    target = vehicle.get("end_index")
                leg = matrix[location][target]
                travel += leg
                location = target
                expected = departure + leg
                arrival = step.get("arrival", expected)
                if abs(arrival - expected) > tolerance:
                    errors.append(f"{at}: arrival {arrival}, the matrix gives {expected}")
                if "duration" in step and abs(step["duration"] - travel) > tolerance * position:
                    errors.append(f"{at}: duration {step['duration']}, travel so far is {travel}")
                if task is None:  # the end
                    if arrival > shift[1]:
                        errors.append(f"{at}: back at {arrival}, after the vehicle's window {shift}")
                    continue
                waiting = step.get("waiting_time", 0)
                if waiting < 0:
                    errors.append(f"{at}: negative waiting time {waiting}")
                begin = arrival + waiting
                if task["windows"] and not any(s <= begin <= e for s, e in task["windows"]):
                    errors.append(f"{at}: service starts at {begin}, outside {task['windows']}")
                earliest = _service_start(arrival, task["windows"])
                if earliest is not None and abs(begin - earliest) > tolerance:
                    errors.append(f"{at}: service starts at {begin}, it could start at {earliest}")
                if step.get("service", task["service"]) != task["service"]:
                    errors.append(f"{at}: service {step.get('service')}, the task asks {task['service']}")
                departure = begin + task["service"]
                if task["shipment"] is None:
                    _add(load, task["delivery"], -1)
                    _add(load, task["pickup"], +1)
                else:
                    _add(load, task["amount"], +1 if step["type"] == "pickup" else -1)
                    if step["type"] == "delivery":
                        partner = seen.get(("pickup", _partner_id(doc, task["shipment"], "pickup")))
                        if partner is None or partner[0] != number or partner[1] > position:
                            errors.append(f"{at}: delivered without an earlier pickup in the same route")
            if any(value < 0 for value in load) or any(v > c for v, c in zip(load, capacity)):
                errors.append(f"{at}: load {load} outside 0..{capacity}")
            if "load" in step and list(step["load"]) != load and dimensions:
                errors.append(f"{at}: reports load {step['load']}, it is {load}")
        if abs(route.get("cost", travel) - travel) > tolerance * (len(steps) - 1):
            errors.append(f"{where}: cost {route.get('cost')}, travel on it is {travel}")
        total += travel
        reported_total += route.get("cost", travel)

    # Each pickup's delivery: a pickup whose delivery came in another route or not at all.
    for number, shipment in enumerate(doc.get("shipments", [])):
        pickup = seen.get(("pickup", shipment["pickup"]["id"]))
        delivery = seen.get(("delivery", shipment["delivery"]["id"]))
        if (pickup is None) != (delivery is None):
            errors.append(f"shipment {shipment['pickup']['id']}/{shipment['delivery']['id']}: only one half served")

    unassigned = set()
    for entry in solution.get("unassigned", []):
        key = (entry.get("type", "job"), entry.get("id"))
        if key not in tasks:
            errors.append(f"unassigned lists {key}, which is no task of the instance")
        elif key in seen:
            errors.append(f"unassigned lists {key}, which a route serves")
        unassigned.add(key)
    missing = sorted(set(tasks) - set(seen) - unassigned, key=str)
    if missing:
        errors.append(f"{len(missing)} task(s) neither routed nor listed as unassigned, e.g. {missing[:5]}")

    summary = solution.get("summary", {})
    routes = len(solution.get("routes", []))
    if "cost" in summary and abs(summary["cost"] - total) > tolerance * (len(seen) + 2 * routes):
        errors.append(f"summary cost {summary['cost']}, travel over all routes is {total}")
    if "unassigned" in summary and summary["unassigned"] != len(solution.get("unassigned", [])):
        errors.append(f"summary says {summary['unassigned']} unassigned, the list has "
                      f"{len(solution.get('unassigned', []))}")
    open_tasks = {key for key in tasks if key not in seen}
    unassigned_tasks = sum(1 for key in open_tasks if key[0] == "job") + \
        sum(1 for key in open_tasks if key[0] == "pickup")
    return errors, total, unassigned_tasks


def _partner_id(doc, number, part):
    return doc["shipments"][number][part]["id"]


def self_test(verbose=True):
    """Hand-made instance and solutions: one feasible, then one mutation per rule the checker enforces."""
    m = [[0, 100, 200, 300], [100, 0, 100, 200], [200, 100, 0, 100], [300, 200, 100, 0]]
    m[1][2] = 110  # asymmetric, so a transposed matrix shows
    doc = {"vehicles": [{"id": 1, "start_index": 0, "end_index": 0, "capacity": [2], "time_window": [0, 3000]},
                        {"id": 2, "start_index": 0, "end_index": 0, "capacity": [2], "time_window": [0, 3000]}],
           "jobs": [{"id": 1, "location_index": 1, "service": 60, "delivery": [1], "time_windows": [[0, 500]]},
                    {"id": 2, "location_index": 2, "service": 60, "delivery": [1], "time_windows": [[400, 900]]}],
           "shipments": [{"amount": [1], "pickup": {"id": 10, "location_index": 1, "service": 30},
                          "delivery": {"id": 20, "location_index": 3, "service": 30}}],
           "matrices": {"motorcycle": {"durations": m}}}

    def step(kind, task_id, where, arrival, travel, service=0, waiting=0, load=None):
        out = {"type": kind, "location_index": where, "arrival": arrival, "duration": travel, "service": service,
               "waiting_time": waiting}
        if task_id is not None:
            out["id"] = task_id
        if load is not None:
            out["load"] = load
        return out

    # Vehicle 1: depot -> job 1 (arrives 100) -> pickup 10 at the same place (160) -> job 2 (300, waits for 400)
    # -> delivery 20 (560) -> depot (890). Travel 100 + 0 + 110 + 100 + 300 = 610.
    good = {"code": 0, "summary": {"cost": 610, "unassigned": 0}, "unassigned": [],
            "routes": [{"vehicle": 1, "cost": 610, "steps": [
                step("start", None, 0, 0, 0, load=[2]),
                step("job", 1, 1, 100, 100, 60, load=[1]),
                step("pickup", 10, 1, 160, 100, 30, load=[2]),
                step("job", 2, 2, 300, 210, 60, waiting=100, load=[1]),
                step("delivery", 20, 3, 560, 310, 30, load=[0]),
                step("end", None, 0, 890, 610, load=[0])]}]}

    def route(solution):
        return solution["routes"][0]["steps"]

    def drop_job_2(solution):
        route(solution).pop(3)
        route(solution)[0]["load"] = [1]
        route(solution)[1]["load"] = [0]
        route(solution)[2]["load"] = [1]
        route(solution)[3].update(arrival=390, duration=300)
        route(solution)[4].update(arrival=720, duration=600)
        solution["routes"][0]["cost"] = solution["summary"]["cost"] = 600

    cases = [
        ("feasible", lambda s: None, None),
        ("arrival off by 5 s", lambda s: route(s)[1].update(arrival=105), "arrival 105"),
        ("arrival off by 1 s (rounding)", lambda s: route(s)[1].update(arrival=101), None),
        ("window missed", lambda s: s["__doc"]["jobs"][1].update(time_windows=[[0, 250]]), "outside"),
        ("needless waiting", lambda s: s["__doc"]["jobs"][1].update(time_windows=[[0, 900]]), "could start at"),
        ("capacity exceeded", lambda s: s["__doc"]["vehicles"][0].update(capacity=[1]), "load [2] outside"),
        ("load misreported", lambda s: route(s)[2].update(load=[1]), "reports load"),
        ("delivery before pickup", lambda s: route(s).insert(1, route(s).pop(4)), "without an earlier pickup"),
        ("job served twice", lambda s: s["routes"].append(
            {"vehicle": 2, "cost": 200, "steps": [step("start", None, 0, 0, 0), step("job", 1, 1, 100, 100, 60),
                                                    step("end", None, 0, 260, 200)]}), "already served"),
        ("job dropped silently", drop_job_2, "neither routed"),
        ("job dropped and listed", lambda s: (drop_job_2(s), s["unassigned"].append({"id": 2, "type": "job"}),
                                              s["summary"].update(unassigned=1)), None),
        ("wrong reported cost", lambda s: s["routes"][0].update(cost=500), "cost 500"),
        ("wrong start place", lambda s: route(s)[0].update(location_index=3), "vehicle's start_index"),
        ("back after shift", lambda s: s["__doc"]["vehicles"][0].update(time_window=[0, 800]), "after the vehicle"),
        ("unknown vehicle", lambda s: s["routes"][0].update(vehicle=9), "no such vehicle"),
        ("listed unassigned yet served", lambda s: s["unassigned"].append({"id": 1, "type": "job"}),
         "which a route serves"),
        ("transposed matrix", lambda s: s["__doc"]["matrices"]["motorcycle"].update(
            durations=[list(row) for row in zip(*m)]), "the matrix gives"),
    ]

    failures = 0
    for name, change, expect in cases:
        solution = copy.deepcopy(good)
        solution["__doc"] = copy.deepcopy(doc)
        change(solution)
        errors, cost, _ = check(solution.pop("__doc"), solution)
        if expect is None:
            ok = not errors and cost == solution["routes"][0]["cost"]
        else:
            ok = any(expect in error for error in errors)
        if verbose or not ok:
            print(f"{'ok  ' if ok else 'FAIL'} checker: {name}" + ("" if ok else f" -> {errors or 'no error'}"))
        failures += not ok
    print(f"checker: {len(cases) - failures} passed, {failures} failed")
    return failures == 0


if __name__ == "__main__":
    sys.exit(0 if self_test() else 1)
