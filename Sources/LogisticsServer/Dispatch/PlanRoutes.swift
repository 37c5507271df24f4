import Foundation
import Hummingbird
import LogisticsCore
import RoadRouting
import RoutePlanning
import Threads

/// `POST /api/v1/plans`: multi-drop routes for a fleet from VROOM's problem format, answered in VROOM's solution
/// shape; travel times from the built-in router unless the request brings its own matrix.
struct PlanRoutes {
    let navigator: Navigator
    let settings: DispatchSettings
    let maxSnapDistanceM: Double

    func register(in routes: inout RouteTable) {
        routes.post("/plans", roles: [.dispatcher, .admin], bodyLimit: 1 << 20, replay: .rerun, plan)
    }

    @Sendable func plan(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let started = ContinuousClock.now
        let body = try await RequestBody.decode(PlanRequest.self, from: request, limit: 1 << 20)
        let navigator = self.navigator
        let maxTasks = settings.planMaxTasks
        let maxSnapDistanceM = self.maxSnapDistanceM
        // Checking a large plan and making its matrix take a while too: also off the cooperative pool.
        let input = try await OwnThread.run {
            try Self.input(body, maxTasks: maxTasks, navigator: navigator, maxSnapDistanceM: maxSnapDistanceM)
        }
        let loading = ContinuousClock.now - started
        let problem = input.problem
        let options = input.options
        // The search runs for its whole budget: on a thread of its own, so other requests are not held up.
        let solution = await OwnThread.run { PlanSolver(problem: problem, options: options).solve() }
        return APIResponse(
            status: .ok, body: try PlanAnswer.json(solution, input: input, loading: loading),
            contentType: "application/json")
    }

    /// The request checked, with the router's matrix when it gives coordinates.
    static func input(_ body: PlanRequest, maxTasks: Int, navigator: Navigator, maxSnapDistanceM: Double) throws
        -> PlanInput
    {
        try PlanInput.make(body, maxTasks: maxTasks) { coordinates in
            let table = try navigator.table(from: coordinates, to: coordinates, profile: nil)
            let unroutable = Set(table.unroutableSources)
            if !unroutable.isEmpty {
                throw LogisticsError(
                    .locationNotRoutable,
                    "\(unroutable.count) of the plan's locations are more than \(Int(maxSnapDistanceM)) m from any "
                        + "road a rider can use",
                    extras: [
                        "locations": .strings(
                            unroutable.sorted().map { index in
                                "[\(coordinates[index].lon), \(coordinates[index].lat)]"
                            })
                    ])
            }
            return table.durationsS.map { row in row.map { $0.map { Int($0.rounded()) } ?? PlanProblem.unreachable } }
        }
    }
}
