#!/usr/bin/env python3
"""Our route optimiser (`POST /api/v1/plans`) against VROOM (pyvroom) and PyVRP on identical integer travel-time
matrices, every answer passed through one independent checker.

    python3 Benchmarks/optimizer/compare.py [--binary PATH] [--sizes 50,100,200,400]
        [--families plain,windows,shipments] [--quick] [--synthetic]

Exit 1 when a solution its solver calls feasible fails the checker, when any solver or the server fails, or (with
--quick) when ours is more than 10 % above the best peer; else 0.
"""

import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import checker  # noqa: E402
import instances  # noqa: E402
import peers  # noqa: E402
import server as ours_server  # noqa: E402

SOLVERS = ("VROOM", "PyVRP", "ours")
QUICK_BUDGET = 2.0
QUICK_GAP = 10.0
# The server takes options.time_limit up to 30 s; peers get the same capped budget so the race stays equal.
SERVER_MAX_BUDGET = 30.0


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.environ.get("LOGISTICS_BINARY") or ours_server.DEFAULT_BINARY)
    parser.add_argument("--sizes", help="job counts, comma-separated (default 50,100,200,400; quick 50,100)")
    parser.add_argument("--families", help="plain,windows,shipments (quick: plain,windows)")
    parser.add_argument("--quick", action="store_true", help="CI mode: small sizes, 2 s budgets, 10 %% gap gate")
    parser.add_argument("--synthetic", action="store_true",
                        help="random plane points instead of the server's Monaco matrix; ours runs only if the "
                             "binary exists")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--vroom-threads", type=int, default=1,
                        help="VROOM threads (default 1: PyVRP is single-threaded and the budget is wall time)")
    parser.add_argument("--max-budget", type=float, default=SERVER_MAX_BUDGET)
    parser.add_argument("--json", help="also write every result to this file")
    args = parser.parse_args()
    try:
        args.sizes = [int(s) for s in (args.sizes or ("50,100" if args.quick else "50,100,200,400")).split(",")]
    except ValueError:
        parser.error("--sizes takes whole numbers separated by commas")
    args.families = (args.families or ("plain,windows" if args.quick else ",".join(instances.FAMILIES))).split(",")
    unknown = [f for f in args.families if f not in instances.FAMILIES]
    if unknown:
        parser.error(f"unknown families {unknown}; known: {', '.join(instances.FAMILIES)}")
    if args.quick:
        args.max_budget = min(args.max_budget, QUICK_BUDGET)
    return args


def outcome(solver, doc, run):
    """Runs one solver and checks its answer; failures become fields, never exceptions, so one bad solver does
    not hide the others' results."""
    result = {"solver": solver}
    try:
        solution, wall, own_verdict = run()
    except peers.PeerUnavailable as reason:
        return result | {"skipped": str(reason)}
    except ours_server.ServerError as error:
        return result | {"failed": str(error)}
    except Exception as error:  # a solver library's own error: report it, keep going, and fail at the end
        return result | {"failed": f"{type(error).__name__}: {error}"}
    errors, cost, unassigned = checker.check(doc, solution)
    listed = [entry.get("id") for entry in solution.get("unassigned", [])]
    return result | {"cost": cost, "reported_cost": solution.get("summary", {}).get("cost"), "time": wall,
                     "unassigned": unassigned, "unassigned_ids": listed, "errors": errors, "feasible": not errors,
                     "claims_feasible": own_verdict, "iterations": solution.get("summary", {}).get("iterations")}


def run_instance(instance, args, server):
    doc = instance["doc"]
    results = {}
    vroom_timeout = args.max_budget if args.quick else None
    results["VROOM"] = outcome("VROOM", doc, lambda: (*peers.solve_vroom(doc, args.vroom_threads, vroom_timeout),
                                                      True))
    # Budget: what VROOM needed here, at least 1 s, at most the cap; peers and ours then race on the same clock.
    measured = results["VROOM"].get("time", 1.0)
    budget = min(max(1.0, measured), args.max_budget)
    instance["budget"] = budget
    instance["capped"] = measured > args.max_budget

    def pyvrp():
        return peers.solve_pyvrp(doc, budget, args.seed, instance["coordinates"])
    results["PyVRP"] = outcome("PyVRP", doc, pyvrp)
    if server is None:
        results["ours"] = {"solver": "ours", "skipped": args.ours_skipped}
    else:
        def ours():
            solution, wall = server.plan(doc, budget, args.seed)
            return solution, wall, solution.get("code") == 0
        results["ours"] = outcome("ours", doc, ours)
    return results


def compared(results):
    """Ours against the best peer: the fewest unassigned first, then the lowest cost. Returns (gap %, note)."""
    mine = results["ours"]
    peers_done = [r for r in (results["VROOM"], results["PyVRP"]) if r.get("feasible")]
    if "skipped" in mine:
        return None, "n/a (ours skipped)"
    if not mine.get("feasible"):
        return None, "n/a (ours failed)" if "failed" in mine else "n/a (ours infeasible)"
    if not peers_done:
        return None, "n/a (no checked peer solution)"
    best = min(peers_done, key=lambda r: (r["unassigned"], r["cost"]))
    if mine["unassigned"] > best["unassigned"]:
        return None, f"worse: +{mine['unassigned'] - best['unassigned']} unassigned vs {best['solver']}"
    if mine["unassigned"] < best["unassigned"]:
        return None, f"better: {best['unassigned'] - mine['unassigned']} fewer unassigned"
    gap = 100.0 * (mine["cost"] - best["cost"]) / best["cost"] if best["cost"] else 0.0
    return gap, f"{gap:+.1f} % vs {best['solver']}"


def cell(result):
    if "skipped" in result:
        return f"{'skipped':>27}"
    if "failed" in result:
        return f"{'FAILED':>27}"
    mark = "yes" if result["feasible"] else ("NO" if result["claims_feasible"] else "no†")
    return f"{result['cost']:>9} {result['unassigned']:>4} {result['time']:>7.2f} {mark:>4}"


def report(rows, args):
    width = 28
    print()
    print(f"{'':<16}{'':>5}{'':>5}{'budget':>8}" + "".join(f" | {name:^{width - 1}}" for name in SOLVERS) +
          " | ours vs best peer")
    print(f"{'instance':<16}{'jobs':>5}{'veh':>5}{'(s)':>8}" +
          f" | {'cost':>9} {'un':>4} {'time s':>7} {'ok':>4}" * len(SOLVERS) + " |")
    print("-" * (34 + 3 * (width + 2) + 19))
    for instance, results in rows:
        budget = f"{instance['budget']:.1f}" + ("*" if instance["capped"] else "")
        print(f"{instance['name']:<16}{instance['jobs']:>5}{instance['vehicles']:>5}{budget:>8}" +
              "".join(f" | {cell(results[name])}" for name in SOLVERS) + f" | {instance['note']}")
    print("(cost: travel seconds incl. depot legs; un: unassigned tasks, a shipment counting once; ok: passes the "
          "checker, no† = the solver itself reported it infeasible; * = budget capped)")

    print()
    for size in sorted({instance["jobs"] for instance, _ in rows}):
        gaps = [instance["gap"] for instance, _ in rows if instance["jobs"] == size and instance["gap"] is not None]
        others = collections.Counter(instance["note"] for instance, _ in rows
                                     if instance["jobs"] == size and instance["gap"] is None)
        line = f"{size:>4} jobs: ours vs best peer "
        line += (f"mean {sum(gaps) / len(gaps):+.1f} %, worst {max(gaps):+.1f} % over {len(gaps)} instance(s)"
                 if gaps else "no comparable instance")
        if others:
            line += "; not compared: " + ", ".join(f"{n} × {note}" for note, n in others.items())
        print(line)

    details = []
    for instance, results in rows:
        for name in SOLVERS:
            result = results[name]
            where = f"{instance['name']} {name}"
            if result.get("skipped") and name != "ours":
                details.append(f"{where}: skipped — {result['skipped']}")
            if result.get("failed"):
                details.append(f"{where}: FAILED — {result['failed']}")
            if result.get("unassigned"):
                ids = result["unassigned_ids"]
                details.append(f"{where}: {result['unassigned']} unassigned, ids {ids[:12]}"
                               + (" …" if len(ids) > 12 else ""))
            for error in result.get("errors", [])[:5]:
                details.append(f"{where}: checker: {error}")
            if len(result.get("errors", [])) > 5:
                details.append(f"{where}: checker: … {len(result['errors']) - 5} more")
    if rows and rows[0][1]["ours"].get("skipped"):
        details.append(f"ours: skipped — {rows[0][1]['ours']['skipped']}")
    if details:
        print()
        print("\n".join(details))


def verdict(rows, args):
    problems = []
    for instance, results in rows:
        for name in SOLVERS:
            result = results[name]
            if result.get("failed"):
                problems.append(f"{instance['name']}: {name} failed")
            elif result.get("errors") and result.get("claims_feasible"):
                problems.append(f"{instance['name']}: {name}'s solution fails the checker")
        if args.quick and results["ours"].get("feasible") is not None:
            if instance["gap"] is not None and instance["gap"] > QUICK_GAP:
                problems.append(f"{instance['name']}: ours is {instance['gap']:.1f} % above the best peer")
            elif instance["note"].startswith("worse"):
                problems.append(f"{instance['name']}: ours {instance['note']}")
    return problems


def main():
    args = parse_args()
    if not checker.self_test(verbose=False):
        print("error: the checker's self-test fails; no result could be trusted", file=sys.stderr)
        return 1
    missing = peers.missing_packages()
    if missing:
        print(f"error: missing Python packages: {', '.join(missing)}. Install them with\n"
              f"  python3 -m pip install -q {' '.join(missing)}   (add --break-system-packages on a managed Python)",
              file=sys.stderr)
        return 1
    found = peers.versions()
    print(f"pyvroom {found['pyvroom']}, pyvrp {found['pyvrp']}; VROOM exploration level {peers.VROOM_EXPLORATION}, "
          f"{args.vroom_threads} thread(s); seed {args.seed}; {'synthetic plane' if args.synthetic else 'Monaco'} "
          f"matrices", flush=True)

    server = None
    args.ours_skipped = None
    rows = []
    try:
        if args.synthetic and not os.path.exists(args.binary):
            args.ours_skipped = f"no server binary at {args.binary} (synthetic mode runs the peers without it)"
        else:
            print(f"starting {args.binary} …", flush=True)
            server = ours_server.Server(args.binary)
            print(f"server at {server.base}", flush=True)
        count = instances.pool_size(max(args.sizes))
        pool = (instances.synthetic_pool(count, args.seed) if args.synthetic
                else instances.server_pool(server, count, args.seed))
        print(f"{len(pool.durations)} points in the {pool.source} pool ({pool.story})", flush=True)
        for size in args.sizes:
            for family in args.families:
                instance = instances.build(pool, family, size, args.seed)
                print(f"solving {instance['name']} …", flush=True)
                results = run_instance(instance, args, server)
                instance["gap"], instance["note"] = compared(results)
                rows.append((instance, results))
    except (ours_server.ServerError, instances.InstanceError) as error:
        print(f"error: {error}", file=sys.stderr)
        if rows:
            report(rows, args)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.stop()

    report(rows, args)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump([{key: value for key, value in instance.items() if key not in ("doc", "coordinates")}
                       | {"results": results} for instance, results in rows], handle, indent=1)
    problems = verdict(rows, args)
    print()
    if problems:
        print("FAILED:\n  " + "\n  ".join(problems))
        return 1
    print("all solutions checked" + (f"; ours within {QUICK_GAP:.0f} % of the best peer" if args.quick and
                                     server is not None else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
