import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// `POST /api/v1/plans` as a VROOM user would call it: their problem JSON, our router's travel times, VROOM's
/// answer shape.
@Suite("Route plans API", .timeLimit(.minutes(3)))
struct PlanTests {
    static let store = [7.4276, 43.7396]
    static let homes: [[Double]] = [
        [7.4206, 43.7347], [7.4170, 43.7289], [7.4240, 43.7347], [7.4262, 43.7392], [7.4250, 43.7380],
        [7.4318, 43.7445],
    ]

    static var problem: [String: Any] {
        [
            "vehicles": [
                ["id": 1, "start": store, "end": store, "capacity": [3], "time_window": [0, 14_400]],
                ["id": 2, "start": store, "end": store, "capacity": [3], "time_window": [0, 14_400]],
            ],
            "jobs": homes.enumerated().map { index, home in
                [
                    "id": 10 + index, "location": home, "service": 120, "delivery": [1],
                    "time_windows": [[0, index == 0 ? 900 : 14_400]],
                ] as [String: Any]
            },
            "shipments": [
                [
                    "amount": [1], "pickup": ["id": 90, "location": homes[5], "service": 60],
                    "delivery": ["id": 90, "location": homes[1], "service": 60],
                ]
            ],
            "options": ["seed": 7, "time_limit": 0.5],
        ]
    }

    @Test("a VROOM problem with coordinates: every job and shipment placed, in VROOM's shape, times adding up")
    func plan() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let dispatcher = try await server.token(.dispatcher)
            let reply = try await server.send(.post, "/api/v1/plans", token: dispatcher, json: Self.problem)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply["code"] as? Int == 0)
            let summary = try #require(reply["summary"] as? [String: Any])
            #expect(summary["unassigned"] as? Int == 0)
            let routes = try #require(reply["routes"] as? [[String: Any]])
            var served: [String] = []
            var total = 0
            for route in routes {
                let steps = try #require(route["steps"] as? [[String: Any]])
                #expect(steps.first?["type"] as? String == "start" && steps.last?["type"] as? String == "end")
                #expect(steps.first?["location"] as? [Double] == Self.store)
                var pickedUp = false
                for step in steps.dropFirst().dropLast() {
                    let type = try #require(step["type"] as? String)
                    served.append("\(type)-\(step["id"] as? Int ?? -1)")
                    if type == "pickup" { pickedUp = true }
                    if type == "delivery" { #expect(pickedUp, "the shipment was delivered before its pickup") }
                    #expect((step["load"] as? [Int])?.allSatisfy { (0...3).contains($0) } == true)
                    if step["id"] as? Int == 10 {
                        let begin = (step["arrival"] as? Int ?? 0) + (step["waiting_time"] as? Int ?? 0)
                        #expect(begin <= 900, "job 10 served at \(begin), after its window")
                    }
                }
                let cost = try #require(route["cost"] as? Int)
                #expect(steps.last?["duration"] as? Int == cost)
                total += cost
            }
            #expect(served.sorted() == (["delivery-90", "pickup-90"] + (10..<16).map { "job-\($0)" }).sorted())
            #expect(summary["cost"] as? Int == total)
            #expect(total > 60)

            // The same problem again with the same seed and iteration count: the same plan.
            var repeatable = Self.problem
            repeatable["options"] = ["seed": 7, "iterations": 300, "time_limit": 30]
            let first = try await server.send(.post, "/api/v1/plans", token: dispatcher, json: repeatable)
            let second = try await server.send(.post, "/api/v1/plans", token: dispatcher, json: repeatable)
            #expect(
                (first["summary"] as? [String: Any])?["cost"] as? Int == (second["summary"] as? [String: Any])?["cost"]
                    as? Int)
        }
    }

    @Test("a problem with its own matrix: location_index, and what cannot be placed is listed with the reason")
    func ownMatrix() async throws {
        try await TestServer.run(.sqlite) { server in
            let problem: [String: Any] = [
                "vehicles": [["id": 7, "start_index": 0, "end_index": 0, "capacity": [2]]],
                "jobs": [
                    ["id": 1, "location_index": 1, "delivery": [1]], ["id": 2, "location_index": 2, "delivery": [1]],
                    ["id": 3, "location_index": 3, "delivery": [5]],
                ],
                "matrices": [
                    "car": ["durations": [[0, 10, 20, 30], [10, 0, 10, 20], [20, 10, 0, 10], [30, 20, 10, 0]]]
                ],
            ]
            let reply = try await server.send(
                .post, "/api/v1/plans", token: try await server.token(.admin), json: problem)
            #expect(reply.status == 200, "\(reply.text)")
            #expect((reply["summary"] as? [String: Any])?["cost"] as? Int == 40)
            let unassigned = try #require(reply["unassigned"] as? [[String: Any]])
            #expect(unassigned.count == 1)
            #expect(unassigned.first?["id"] as? Int == 3)
            #expect(unassigned.first?["location_index"] as? Int == 3)
            #expect(unassigned.first?["reason"] as? String == "its amount is more than any rider can carry")
        }
    }

    @Test("VROOM's costs matrix: the plan minimises costs, its durations stay travel time; costs need durations")
    func customCosts() async throws {
        try await TestServer.run(.sqlite) { server in
            // By time the rider goes 0 → 1 → 2 → 0 (30 s); a toll on 0 → 1 makes 0 → 2 → 1 → 0 cheaper (35 s of time).
            let durations = [[0, 10, 10], [10, 0, 10], [10, 15, 0]]
            let costs = [[0, 100, 10], [10, 0, 10], [10, 15, 0]]
            var problem: [String: Any] = [
                "vehicles": [["id": 1, "start_index": 0, "end_index": 0]],
                "jobs": [["id": 1, "location_index": 1], ["id": 2, "location_index": 2]],
                "matrices": ["car": ["durations": durations]],
            ]
            let admin = try await server.token(.admin)
            let byTime = try await server.send(.post, "/api/v1/plans", token: admin, json: problem)
            #expect((byTime["summary"] as? [String: Any])?["cost"] as? Int == 30)
            problem["matrices"] = ["car": ["durations": durations, "costs": costs]]
            let reply = try await server.send(.post, "/api/v1/plans", token: admin, json: problem)
            #expect(reply.status == 200, "\(reply.text)")
            let summary = try #require(reply["summary"] as? [String: Any])
            #expect(summary["cost"] as? Int == 35)
            #expect(summary["duration"] as? Int == 35)
            let steps = try #require((reply["routes"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]])
            #expect(steps.compactMap { $0["id"] as? Int } == [2, 1])

            problem["matrices"] = ["car": ["durations": durations, "costs": [[0, 1], [1, 0]]]]
            let wrongShape = try await server.send(.post, "/api/v1/plans", token: admin, json: problem)
            #expect(wrongShape.status == 400)
            #expect(wrongShape.text.contains("matrices.costs"))
            problem["matrices"] = ["car": ["durations": durations], "bike": ["costs": costs]]
            let alone = try await server.send(.post, "/api/v1/plans", token: admin, json: problem)
            #expect(alone.status == 400)
            #expect(alone.text.contains("matrices.costs"))
        }
    }

    @Test("bad plans: 400 naming the field, over the size limit refused, 422 off the roads, 403 for riders")
    func badPlans() async throws {
        try await TestServer.run(
            .sqlite,
            configure: {
                MapFixture.monaco(&$0)
                $0.dispatch.planMaxTasks = 8
            }
        ) { server in
            let dispatcher = try await server.token(.dispatcher)
            func with(_ change: (inout [String: Any]) -> Void) -> [String: Any] {
                var problem = Self.problem
                change(&problem)
                return problem
            }
            let cases: [([String: Any], String)] = [
                (with { $0["vehicles"] = [] as [Any] }, "vehicles"),
                (
                    with {
                        $0["jobs"] = [] as [Any]; $0["shipments"] = [] as [Any]
                    }, "jobs"
                ),
                (with { $0["jobs"] = (0..<9).map { ["id": $0, "location": Self.store] } }, "jobs"),
                (
                    with { $0["jobs"] = [["id": 1, "location": [7.42, 91.0], "delivery": [1]]] }, "jobs[0].location.lat"
                ),
                (with { $0["jobs"] = [["id": 1, "location_index": 0, "delivery": [1]]] }, "jobs[0].location"),
                (
                    with {
                        $0["jobs"] = [
                            ["id": 1, "location": Self.store, "delivery": [1], "time_windows": [[500, 100]]]
                        ]
                    },
                    "jobs[0].time_windows[0]"
                ),
                (with { $0["jobs"] = [["id": 1, "location": Self.store, "delivery": [1, 2]]] }, "jobs[0].delivery"),
                (
                    with { $0["jobs"] = [["id": 1, "location": Self.store], ["id": 1, "location": Self.store]] }, "jobs"
                ),
                (with { $0["options"] = ["time_limit": 600] }, "options.time_limit"),
                (with { $0["jobs"] = [["id": "one", "location": Self.store]] }, "jobs[0].id"),
            ]
            for (body, field) in cases {
                let reply = try await server.send(.post, "/api/v1/plans", token: dispatcher, json: body)
                #expect(reply.status == 400, "\(field): \(reply.text)")
                #expect(reply.code == "VALIDATION_FAILED")
                let fields = (reply["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String } ?? []
                #expect(fields.contains(field), "\(field): \(fields)")
            }
            let sea = try await server.send(
                .post, "/api/v1/plans", token: dispatcher,
                json: with { $0["jobs"] = [["id": 1, "location": [7.46, 43.70], "delivery": [1]]] })
            #expect(sea.status == 422)
            #expect(sea.code == "LOCATION_NOT_ROUTABLE")
            let rider = try await server.send(
                .post, "/api/v1/plans", token: try await server.token(.rider), json: Self.problem)
            #expect(rider.status == 403)
        }
    }
}
