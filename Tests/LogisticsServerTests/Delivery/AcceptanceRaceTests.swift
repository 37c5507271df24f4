import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

@Suite("Acceptance races", .serialized, .timeLimit(.minutes(3)))
struct AcceptanceRaceTests {
    @Test("50 riders accept one order at once: exactly one wins, 20 times over", arguments: StoreKind.available)
    func fiftyRiders(kind: StoreKind) async throws {
        // 50 riders are 50 phones; here they share one address and would meet its rate limit.
        try await TestServer.run(
            kind,
            mode: .live,
            configure: {
                $0.database.poolSize = 20
                $0.rateLimits = .off
            }
        ) { server in
            for round in 0..<20 {
                let scenario = try await DeliveryScenario.ready(server)
                var riders: [(id: UUID, token: String)] = []
                for _ in 0..<50 { riders.append(try await scenario.onlineRider()) }
                let offers = try await scenario.offer(to: riders.map(\.id))
                let port = server.port
                let results = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                    for rider in riders {
                        let offerId = offers[rider.id]!
                        group.addTask {
                            let reply = try await ConcurrentClient.send(
                                port: port, .post, "/api/v1/rider/offers/\(offerId)/accept", token: rider.token)
                            return (reply.status, reply.code)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(
                    results.filter { $0.0 == 200 }.count == 1,
                    "round \(round): \(Dictionary(grouping: results, by: { "\($0.0) \($0.1 ?? "")" }).mapValues(\.count))"
                )
                #expect(
                    results.filter { $0.0 == 409 && $0.1 == "ORDER_ALREADY_ASSIGNED" }.count == 49,
                    "round \(round): \(results)")
                #expect(try await server.count("tasks", "order_id = ?", [.text(scenario.orderId)]) == 1)
                let onTask = try await server.count("riders", "availability = 'ON_TASK'")
                #expect(onTask == round + 1, "one more rider on task per round")
                let assigned = try await server.count(
                    "order_events", "order_id = ? AND type = 'OrderAssigned'", [.text(scenario.orderId)])
                #expect(assigned == 1)
            }
        }
    }

    @Test(
        "one rider accepts two orders at once: one wins, the other is RIDER_HAS_ACTIVE_TASK",
        arguments: StoreKind.available)
    func oneRiderTwoOrders(kind: StoreKind) async throws {
        try await TestServer.run(kind, mode: .live) { server in
            for _ in 0..<10 {
                let first = try await DeliveryScenario.ready(server)
                let second = try await DeliveryScenario.ready(server)
                let rider = try await first.onlineRider()
                let offerA = try await first.offer(to: [rider.id])[rider.id]!
                let offerB = try await second.offer(to: [rider.id])[rider.id]!
                let port = server.port
                async let a = ConcurrentClient.send(
                    port: port, .post, "/api/v1/rider/offers/\(offerA)/accept", token: rider.token)
                async let b = ConcurrentClient.send(
                    port: port, .post, "/api/v1/rider/offers/\(offerB)/accept", token: rider.token)
                let replies = try await [a, b]
                #expect(replies.filter { $0.status == 200 }.count == 1)
                #expect(
                    replies.filter { $0.code == "RIDER_HAS_ACTIVE_TASK" }.count == 1,
                    "\(replies.map { "\($0.status) \($0.code ?? "")" })")
                #expect(try await server.count("tasks", "rider_id = ?", [.text(rider.id.lowercased)]) == 1)
                // Free the rider for the next round.
                _ = try await server.send(
                    .post, "/api/v1/orders/\(first.orderId)/cancel", token: first.dispatcher, json: [:])
                _ = try await server.send(
                    .post, "/api/v1/orders/\(second.orderId)/cancel", token: first.dispatcher, json: [:])
            }
        }
    }

    @Test(
        "accept racing cancel: accepted then cancelled, or ORDER_CANCELLED; never an orphan task",
        arguments: StoreKind.available)
    func acceptVersusCancel(kind: StoreKind) async throws {
        try await TestServer.run(kind, mode: .live) { server in
            var outcomes: Set<String> = []
            for _ in 0..<15 {
                let scenario = try await DeliveryScenario.ready(server)
                let rider = try await scenario.onlineRider()
                let offerId = try await scenario.offer(to: [rider.id])[rider.id]!
                let port = server.port
                let cancelBody = try JSONSerialization.data(withJSONObject: ["reason": "race"])
                async let accept = ConcurrentClient.send(
                    port: port, .post, "/api/v1/rider/offers/\(offerId)/accept", token: rider.token)
                async let cancel = ConcurrentClient.send(
                    port: port, .post, "/api/v1/orders/\(scenario.orderId)/cancel", token: scenario.dispatcher,
                    jsonBody: cancelBody)
                let (accepted, cancelled) = try await (accept, cancel)
                #expect(cancelled.status == 200)
                if accepted.status == 200 {
                    outcomes.insert("accepted-then-cancelled")
                    let task = try await server.database.first(
                        "SELECT status FROM tasks WHERE order_id = ?", [.text(scenario.orderId)])
                    #expect(task?.optionalString("status") == "CANCELLED")
                } else {
                    outcomes.insert("cancelled-first")
                    #expect(accepted.code == "ORDER_CANCELLED")
                    #expect(try await server.count("tasks", "order_id = ?", [.text(scenario.orderId)]) == 0)
                }
                let me = try await server.send(.get, "/api/v1/rider/me", token: rider.token)
                #expect(me["availability"] as? String == "ONLINE")
                #expect(me["activeTaskId"] == nil)
            }
            #expect(!outcomes.isEmpty)
        }
    }
}
