import Foundation
import LogisticsCore
import RoutePlanning

/// A plan in VROOM's output shape: `code`, `summary`, `routes` with `steps` (arrival, travel so far, service,
/// waiting, load), `unassigned` (with the reason, which VROOM does not give).
enum PlanAnswer {
    static func json(_ solution: PlanSolution, input: PlanInput, loading: Duration) throws -> Data {
        let problem = input.problem
        let dimensions = problem.vehicles.first?.capacity.count ?? 0
        func place(_ index: Int?) -> [String: Any] {
            guard let index else { return [:] }
            if let coordinates = input.coordinates {
                return ["location": [coordinates[index].lon, coordinates[index].lat]]
            }
            return ["location_index": index]
        }
        func sum(_ amounts: [[Int]]) -> [Int] {
            amounts.reduce(Array(repeating: 0, count: dimensions)) { zip($0, $1).map(+) }
        }
        func carried(_ request: PlanProblem.Request) -> (delivery: [Int], pickup: [Int]) {
            request.isShipment ? (request.delivery, request.delivery) : (request.delivery, request.pickup)
        }
        var routes: [[String: Any]] = []
        var totals = (delivery: [[Int]](), pickup: [[Int]](), service: 0, duration: 0, waiting: 0, priority: 0)
        for route in solution.routes {
            let vehicle = problem.vehicles[route.vehicle]
            var steps: [[String: Any]] = []
            if vehicle.start != nil {
                steps.append(
                    [
                        "type": "start", "arrival": route.departure, "duration": 0, "setup": 0, "service": 0,
                        "waiting_time": 0, "load": route.startLoad,
                    ].merging(place(vehicle.start)) { $1 })
            }
            var requests: Set<Int> = []
            for visit in route.visits {
                requests.insert(visit.request)
                steps.append(
                    [
                        "type": visit.stop.kind.rawValue, "id": visit.stop.id, "arrival": visit.arrival,
                        "duration": visit.travelled, "setup": 0, "service": visit.stop.service,
                        "waiting_time": visit.waiting, "load": visit.load,
                    ].merging(place(visit.stop.location)) { $1 })
            }
            if vehicle.end != nil {
                steps.append(
                    [
                        "type": "end", "arrival": route.arrivalAtEnd, "duration": route.duration, "setup": 0,
                        "service": 0, "waiting_time": 0, "load": route.visits.last?.load ?? route.startLoad,
                    ].merging(place(vehicle.end)) { $1 })
            }
            let amounts = requests.map { carried(problem.requests[$0]) }
            let priority = requests.reduce(0) { $0 + problem.requests[$1].priority }
            routes.append([
                "vehicle": vehicle.id, "cost": route.cost, "delivery": sum(amounts.map(\.delivery)),
                "pickup": sum(amounts.map(\.pickup)), "setup": 0, "service": route.service, "duration": route.duration,
                "waiting_time": route.waiting, "priority": priority, "steps": steps, "violations": [Any](),
            ])
            totals.delivery += amounts.map(\.delivery)
            totals.pickup += amounts.map(\.pickup)
            totals.service += route.service
            totals.duration += route.duration
            totals.waiting += route.waiting
            totals.priority += priority
        }
        var unassigned: [[String: Any]] = []
        for item in solution.unassigned {
            for stop in problem.requests[item.request].stops {
                unassigned.append(
                    ["id": stop.id, "type": stop.kind.rawValue, "reason": item.reason].merging(place(stop.location)) {
                        $1
                    })
            }
        }
        let answer: [String: Any] = [
            "code": 0,
            "summary": [
                "cost": solution.cost, "routes": routes.count, "unassigned": unassigned.count,
                "delivery": sum(totals.delivery), "pickup": sum(totals.pickup), "setup": 0,
                "service": totals.service, "duration": totals.duration, "waiting_time": totals.waiting,
                "priority": totals.priority, "violations": [Any](),
                "computing_times": [
                    "loading": Int(loading / .milliseconds(1)), "solving": Int(solution.solvingTime / .milliseconds(1)),
                    "routing": 0,
                ],
                "iterations": solution.iterations,
            ],
            "routes": routes,
            "unassigned": unassigned,
        ]
        return try JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys])
    }
}
