import Foundation
import HTTPTypes
import LogisticsCore
import Testing

@testable import TestSupport

/// A store takes "Ready" back within a minute (`POST …/ready/undo`), and follows the rider coming for the order
/// (`GET …/pickup`). Too late, or once a rider has the parcel, is a clear 409 with nothing changed.
@Suite("A store takes Ready back and sees the rider coming", .timeLimit(.minutes(3)))
struct ReadyUndoTests {
    /// An order the store created and marked ready, with the scenario to offer it as a dispatcher.
    static func readyStoreOrder(_ server: TestServer) async throws -> (scenario: DeliveryScenario, store: String) {
        let store = try await server.token(.vendor, UUID())
        let customerId = UUID()
        let created = try await server.send(
            .post, "/api/v1/orders", token: store, json: Fixtures.order(customerId: customerId))
        let orderId = try #require(created["orderId"] as? String)
        #expect(try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: store).status == 200)
        let scenario = DeliveryScenario(
            server: server, dispatcher: try await server.token(.dispatcher), orderId: orderId, customerId: customerId,
            customer: try await server.token(.customer, customerId))
        return (scenario, store)
    }

    @Test(
        "within a minute: the order is being prepared again, its open offers withdrawn, the log says so",
        arguments: StoreKind.available)
    func undoWithinAMinute(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (scenario, store) = try await Self.readyStoreOrder(server)
            let rider = try await scenario.onlineRider()
            _ = try await scenario.offer(to: [rider.id])
            let before = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)/pickup", token: store)
            #expect(before["stage"] as? String == "WAITING_FOR_RIDER" && before["undoableUntil"] != nil)
            server.clock.advance(by: 50)
            let undone = try await server.send(.post, "/api/v1/orders/\(scenario.orderId)/ready/undo", token: store)
            #expect(undone.status == 200, "\(undone.text)")
            #expect(undone["status"] as? String == "PREPARING" && undone["readyAt"] == nil)
            #expect(try await server.count("offers", "status = 'OPEN'") == 0)
            let events = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/events", token: scenario.dispatcher)
            let types = (events["events"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
            #expect(types.last == "OrderReadyUndone", "\(types)")
            // A second tap (a lost answer) gets the order as it is, and writes nothing.
            let repeated = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/ready/undo", token: store)
            #expect(repeated.status == 200 && repeated["status"] as? String == "PREPARING")
            #expect(try await server.count("order_events", "type = 'OrderReadyUndone'") == 1)
            let accept = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/pickup", token: store)
            #expect(accept["undoableUntil"] == nil)
            // Ready again: the order waits for a rider as before.
            #expect(
                try await server.send(.post, "/api/v1/orders/\(scenario.orderId)/ready", token: store).status == 200)
        }
    }

    @Test("after a minute: 409 READY_UNDO_EXPIRED saying until when, nothing changed", arguments: StoreKind.available)
    func tooLate(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (scenario, store) = try await Self.readyStoreOrder(server)
            let events = try await server.count("order_events")
            server.clock.advance(by: 61)
            let late = try await server.send(.post, "/api/v1/orders/\(scenario.orderId)/ready/undo", token: store)
            #expect(late.status == 409 && late.code == "READY_UNDO_EXPIRED", "\(late.text)")
            #expect(
                late["undoableUntil"] is String && late["title"] as? String == "It is too late to take \"Ready\" back")
            #expect(late.headers[.contentType]?.hasPrefix("application/problem+json") == true)
            let order = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)", token: store)
            #expect(order["status"] as? String == "READY_FOR_PICKUP" && order["readyAt"] != nil)
            #expect(try await server.count("order_events") == events)
        }
    }

    @Test("a rider on the way keeps the order and is told it is not ready; after pickup it is refused")
    func riderAssigned() async throws {
        try await TestServer.run(.sqlite) { server in
            let (scenario, store) = try await Self.readyStoreOrder(server)
            let (_, rider, taskId) = try await scenario.assigned()
            let coming = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)/pickup", token: store)
            #expect(coming.status == 200, "\(coming.text)")
            #expect(coming["stage"] as? String == "ON_THE_WAY")
            #expect((coming["rider"] as? [String: Any])?["firstName"] as? String == "Test")
            let undone = try await server.send(.post, "/api/v1/orders/\(scenario.orderId)/ready/undo", token: store)
            #expect(undone["status"] as? String == "RIDER_ASSIGNED" && undone["readyAt"] == nil, "\(undone.text)")
            #expect(try await server.count("outbox", "title = 'Order not ready yet'") == 1)

            #expect(
                try await server.send(.post, "/api/v1/orders/\(scenario.orderId)/ready", token: store).status == 200)
            #expect(try await scenario.status(taskId, "ARRIVED_AT_STORE", rider: rider).status == 200)
            let arrived = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)/pickup", token: store)
            #expect(arrived["stage"] as? String == "AT_THE_STORE" && arrived["arrivedAt"] is String)
            #expect(try await scenario.status(taskId, "PICKED_UP", rider: rider).status == 200)
            let events = try await server.count("order_events")
            let refused = try await server.send(.post, "/api/v1/orders/\(scenario.orderId)/ready/undo", token: store)
            #expect(refused.status == 409 && refused.code == "INVALID_STATUS_TRANSITION", "\(refused.text)")
            #expect(refused["currentStatus"] as? String == "IN_TRANSIT")
            #expect(try await server.count("order_events") == events)
            let gone = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)/pickup", token: store)
            #expect(gone["stage"] as? String == "PICKED_UP" && gone["pickedUpAt"] is String)
        }
    }

    @Test("another store's order is 404, a rider or customer 403")
    func access() async throws {
        try await TestServer.run(.sqlite) { server in
            let (scenario, _) = try await Self.readyStoreOrder(server)
            let other = try await server.token(.vendor, UUID())
            for (method, path) in [(.post, "ready/undo"), (.get, "pickup")] as [(HTTPRequest.Method, String)] {
                let path = "/api/v1/orders/\(scenario.orderId)/\(path)"
                #expect(try await server.send(method, path, token: other).status == 404)
                #expect(try await server.send(method, path, token: scenario.customer).status == 403)
                #expect(try await server.send(method, path, token: try await server.token(.rider)).status == 403)
            }
            let order = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)", token: scenario.dispatcher)
            #expect(order["status"] as? String == "READY_FOR_PICKUP")
        }
    }
}
