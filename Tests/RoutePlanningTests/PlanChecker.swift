import RoutePlanning

/// An independent reading of a plan against its problem: every request once, each shipment's pickup before its
/// delivery on one route, service inside a window, the shift kept, the load within capacity, the cost as
/// reported. Returns what is wrong (nothing for a valid plan).
enum PlanChecker {
    static func problems(in solution: PlanSolution, for problem: PlanProblem) -> [String] {
        var wrong: [String] = []
        var seen: [Int: Int] = [:]
        var total = 0
        for route in solution.routes {
            let vehicle = problem.vehicles[route.vehicle]
            let dimensions = max(vehicle.capacity.count, 1)
            func padded(_ amounts: [Int]) -> [Int] { amounts + Array(repeating: 0, count: dimensions - amounts.count) }
            var load = Array(repeating: 0, count: dimensions)
            for visit in route.visits where visit.stop.kind == .job {
                load = zip(load, padded(problem.requests[visit.request].delivery)).map(+)
            }
            let capacity = padded(vehicle.capacity)
            if zip(load, capacity).contains(where: { $0 > $1 }) {
                wrong.append("vehicle \(vehicle.id) leaves overloaded")
            }
            var time = vehicle.shift.lowerBound
            var place = vehicle.start
            var cost = 0
            var picked: Set<Int> = []
            for visit in route.visits {
                let leg = place.map { problem.durations[$0][visit.stop.location] } ?? 0
                cost += place.map { (problem.costs ?? problem.durations)[$0][visit.stop.location] } ?? 0
                let arrival = time + leg
                if arrival != visit.arrival {
                    wrong.append("stop \(visit.stop.id): arrival \(visit.arrival), not \(arrival)")
                }
                guard let window = visit.stop.windows.first(where: { $0.upperBound >= arrival }) else {
                    wrong.append("stop \(visit.stop.id) reached at \(arrival), after its windows")
                    break
                }
                time = max(arrival, window.lowerBound) + visit.stop.service
                place = visit.stop.location
                let request = problem.requests[visit.request]
                switch visit.stop.kind {
                case .job:
                    seen[visit.request, default: 0] += 1
                    load = zip(load, padded(request.pickup)).map(+)
                    load = zip(load, padded(request.delivery)).map(-)
                case .pickup:
                    seen[visit.request, default: 0] += 1
                    picked.insert(visit.request)
                    load = zip(load, padded(request.delivery)).map(+)
                case .delivery:
                    if !picked.contains(visit.request) {
                        wrong.append("shipment \(visit.stop.id) delivered before its pickup")
                    }
                    load = zip(load, padded(request.delivery)).map(-)
                }
                if zip(load, capacity).contains(where: { $0 > $1 || $1 < 0 }) || load.contains(where: { $0 < 0 }) {
                    wrong.append("vehicle \(vehicle.id) over capacity after stop \(visit.stop.id)")
                }
                if visit.load != load { wrong.append("stop \(visit.stop.id): load \(visit.load), not \(load)") }
            }
            let last = place.flatMap { from in vehicle.end.map { problem.durations[from][$0] } } ?? 0
            cost += place.flatMap { from in vehicle.end.map { (problem.costs ?? problem.durations)[from][$0] } } ?? 0
            if time + last > vehicle.shift.upperBound { wrong.append("vehicle \(vehicle.id) ends after its shift") }
            if cost != route.cost { wrong.append("vehicle \(vehicle.id): cost \(route.cost), not \(cost)") }
            total += cost
        }
        let unassigned = Set(solution.unassigned.map(\.request))
        for request in problem.requests.indices {
            let count = seen[request, default: 0]
            if count > 1 { wrong.append("request \(request) planned \(count) times") }
            if count == 0 && !unassigned.contains(request) {
                wrong.append("request \(request) neither planned nor unassigned")
            }
            if count == 1 && unassigned.contains(request) { wrong.append("request \(request) planned and unassigned") }
        }
        if total != solution.cost { wrong.append("total cost \(solution.cost), not \(total)") }
        return wrong
    }
}
