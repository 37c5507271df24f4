import Foundation
import LogisticsCore
import RoutePlanning
import Testing
import Threads

@Suite("Route planning")
struct PlanSolverTests {
    /// Solves on a thread of its own: a search holds its thread for its whole run, and the tests of other suites
    /// wait for the cooperative pool's threads (two on a 2-core machine), some with their own timeouts.
    static func solved(_ problem: PlanProblem, _ options: PlanOptions) async -> PlanSolution {
        await OwnThread.run { PlanSolver(problem: problem, options: options).solve() }
    }

    /// Points on a plane, travel time the rounded Euclidean distance: instances whose answers can be reasoned about.
    static func matrix(_ points: [(Double, Double)]) -> [[Int]] {
        points.map { a in
            points.map { b in Int((((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1)).squareRoot()).rounded()) }
        }
    }

    static func randomInstance(jobs: Int, shipments: Int, vehicles: Int, windows: Bool, seed: UInt64) -> PlanProblem {
        var state = seed
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        let points = (0..<(1 + jobs + 2 * shipments)).map { _ in (next() * 3000, next() * 3000) }
        var requests: [PlanProblem.Request] = []
        for index in 0..<jobs {
            var slots: [ClosedRange<Int>] = []
            if windows {
                let start = Int(next() * 20_000)
                slots = [start...(start + 3600)]
            }
            requests.append(
                .job(
                    PlanProblem.Stop(
                        id: UInt64(index + 1), kind: .job, location: 1 + index, service: 120, windows: slots),
                    delivery: [1], pickup: []))
        }
        for index in 0..<shipments {
            requests.append(
                .shipment(
                    pickup: PlanProblem.Stop(
                        id: UInt64(1000 + index), kind: .pickup, location: 1 + jobs + 2 * index, service: 60),
                    delivery: PlanProblem.Stop(
                        id: UInt64(2000 + index), kind: .delivery, location: 2 + jobs + 2 * index, service: 60),
                    amount: [1]))
        }
        let riders = (0..<vehicles).map {
            PlanProblem.Vehicle(
                id: UInt64($0 + 1), start: 0, end: 0, capacity: [max(4, (jobs + shipments) / vehicles + 3)],
                shift: 0...28_800)
        }
        return PlanProblem(durations: matrix(points), vehicles: riders, requests: requests)
    }

    @Test("one rider, seven stops: the plan is the shortest tour, as every ordering tried by hand finds")
    func smallTourIsOptimal() async {
        let points: [(Double, Double)] = [
            (0, 0), (100, 0), (300, 50), (120, 400), (-200, 300), (-250, -100), (50, -300), (400, -200),
        ]
        let durations = Self.matrix(points)
        let requests = (1..<points.count).map {
            PlanProblem.Request.job(
                PlanProblem.Stop(id: UInt64($0), kind: .job, location: $0), delivery: [], pickup: [])
        }
        let problem = PlanProblem(
            durations: durations, vehicles: [PlanProblem.Vehicle(id: 1, start: 0, end: 0, capacity: [])],
            requests: requests)
        let solution = await Self.solved(problem, PlanOptions(seed: 3, maxIterations: 2_000))
        #expect(PlanChecker.problems(in: solution, for: problem).isEmpty)
        var best = Int.max
        func permute(_ rest: [Int], _ at: Int, _ cost: Int) {
            if rest.isEmpty {
                best = min(best, cost + durations[at][0])
                return
            }
            for (index, next) in rest.enumerated() where cost + durations[at][next] < best {
                var left = rest
                left.remove(at: index)
                permute(left, next, cost + durations[at][next])
            }
        }
        permute(Array(1..<points.count), 0, 0)
        #expect(solution.cost == best)
    }

    @Test(
        "random instances with windows, capacities and shipments: valid plans, everyone placed, repeatable by seed",
        arguments: [(60, 0, 6, false), (80, 0, 8, true), (30, 20, 6, true)])
    func randomInstances(jobs: Int, shipments: Int, vehicles: Int, windows: Bool) async {
        let problem = Self.randomInstance(
            jobs: jobs, shipments: shipments, vehicles: vehicles, windows: windows, seed: 11)
        let options = PlanOptions(seed: 5, timeLimit: .seconds(60), maxIterations: 600)
        let solution = await Self.solved(problem, options)
        #expect(PlanChecker.problems(in: solution, for: problem) == [])
        #expect(solution.unassigned.isEmpty, "\(solution.unassigned.prefix(3))")
        let again = await Self.solved(problem, options)
        #expect(again.cost == solution.cost)
        #expect(again.routes.map { $0.visits.map(\.stop.id) } == solution.routes.map { $0.visits.map(\.stop.id) })
        // The search improves on the first plan.
        let first = await Self.solved(problem, PlanOptions(seed: 5, maxIterations: 0))
        #expect(solution.cost < first.cost, "\(solution.cost) vs first plan \(first.cost)")
    }

    @Test("what cannot be placed is left out with its reason; the rest is planned")
    func reasons() async {
        let durations = Self.matrix([(0, 0), (100, 0), (200, 0), (300, 0), (10_000, 0)])
        let requests: [PlanProblem.Request] = [
            .job(PlanProblem.Stop(id: 1, kind: .job, location: 1), delivery: [1], pickup: []),
            .job(PlanProblem.Stop(id: 2, kind: .job, location: 2), delivery: [9], pickup: []),
            .job(PlanProblem.Stop(id: 3, kind: .job, location: 3, windows: [0...50]), delivery: [1], pickup: []),
            .job(PlanProblem.Stop(id: 4, kind: .job, location: 1), delivery: [1], pickup: [], skills: [7]),
            .job(PlanProblem.Stop(id: 5, kind: .job, location: 2), delivery: [1], pickup: []),
            .job(PlanProblem.Stop(id: 6, kind: .job, location: 3), delivery: [1], pickup: []),
        ]
        let problem = PlanProblem(
            durations: durations,
            vehicles: [PlanProblem.Vehicle(id: 1, start: 0, end: 0, capacity: [2], shift: 0...5_000)],
            requests: requests)
        let solution = await Self.solved(problem, PlanOptions(maxIterations: 200))
        #expect(PlanChecker.problems(in: solution, for: problem) == [])
        let reasons = Dictionary(
            uniqueKeysWithValues: solution.unassigned.map { (problem.requests[$0.request].stops[0].id, $0.reason) })
        #expect(reasons[2] == "its amount is more than any rider can carry")
        #expect(reasons[3] == "no rider can reach it within its time windows and their shift")
        #expect(reasons[4] == "no rider has the skills it needs")
        // Capacity 2 for jobs 1, 5 and 6: one of them waits for another rider.
        #expect(solution.routes.first?.visits.count == 2)
        #expect(reasons.values.filter { $0.hasPrefix("no room left") }.count == 1)
    }
}
