import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

/// Automatic dispatch ahead of the ready mark: a vendor's preparation time sends a rider to arrive as the goods do.
@Suite("Dispatch on the preparation time", .timeLimit(.minutes(3)))
struct PreparationDispatchTests {
    typealias Auto = AutoDispatchTests

    /// Seconds by road from `point` to the fixtures' store, from the server's own matrix.
    static func roadSeconds(from point: GeoPoint, _ server: TestServer, dispatcher: String) async throws -> Double {
        let reply = try await server.send(
            .post, "/api/v1/matrix", token: dispatcher,
            json: [
                "sources": [["lat": point.lat, "lon": point.lon]],
                "destinations": [["lat": Auto.store.lat, "lon": Auto.store.lon]],
            ])
        let durations = try #require(reply["durations"] as? [[Double]])
        return durations[0][0]
    }

    @Test(
        "an order being prepared is offered once the best rider's ride is as long as the time left; the ready mark later keeps the rider",
        arguments: StoreKind.available)
    func sentAhead(store: StoreKind) async throws {
        try await TestServer.run(store, configure: Auto.automatic()) { server in
            let dispatcher = try await server.token(.dispatcher)
            let vendor = try await server.token(.vendor)
            let setup = DeliveryScenario(
                server: server, dispatcher: dispatcher, orderId: "", customerId: UUID(), customer: "")
            let rider = try await setup.onlineRider(name: "Ahead")
            let spot = GeoPoint(lat: 43.7347, lon: 7.4206)
            try await Auto.place(rider.id, at: spot, on: server)
            let ride = try await Self.roadSeconds(from: spot, server, dispatcher: dispatcher)
            #expect(ride > 60 && ride < 600, "the fixture's ride is a few minutes: \(ride) s")

            var body = Fixtures.order()
            body["preparationMinutes"] = 10
            let created = try await server.send(.post, "/api/v1/orders", token: vendor, json: body)
            #expect(created.status == 201)
            #expect(created["status"] as? String == "PREPARING")
            let orderId = try #require(created["orderId"] as? String)
            let createdAt = try #require((created["createdAt"] as? String).flatMap(RFC3339.date(from:)))
            let expected = try #require((created["expectedReadyAt"] as? String).flatMap(RFC3339.date(from:)))
            #expect(abs(expected.timeIntervalSince(createdAt) - 600) < 0.01)

            // A minute more to wait than the ride: not asked yet, however many sweeps pass.
            server.clock.advance(by: 600 - ride - 60)
            try await Task.sleep(for: .milliseconds(800))
            let early = try await server.send(.get, "/api/v1/rider/offers", token: rider.token)
            #expect((early["offers"] as? [Any])?.isEmpty == true, "offered \(Int(ride + 60)) s before ready")

            // Half a minute less than the ride: asked, with the reason in the log.
            server.clock.advance(by: 90)
            let offer = try #require(try await Auto.offer(for: rider.token, on: server), "never offered")
            #expect(offer["orderId"] as? String == orderId)
            #expect(offer["expectedReadyAt"] as? String == created["expectedReadyAt"] as? String)
            let made = try await Auto.events(orderId, server, dispatcher: dispatcher).first {
                $0["type"] as? String == "OffersMade"
            }
            let details = try #require(made?["details"] as? [String: String])
            let readyIn = try #require(details["readyInSeconds"].flatMap(Double.init), "\(details)")
            #expect(abs(readyIn - (ride - 30)) <= 1, "\(details)")
            #expect(details["reason"]?.contains("sent ahead") == true, "\(details)")
            #expect(made?["status"] as? String == "PREPARING")

            // The rider takes it while the kitchen works; the order has its rider before it is ready.
            let accepted = try await server.send(
                .post, "/api/v1/rider/offers/\(offer["offerId"] as! String)/accept", token: rider.token)
            #expect(accepted.status == 200)
            var order = try await server.send(.get, "/api/v1/orders/\(orderId)", token: dispatcher)
            #expect(order["status"] as? String == "RIDER_ASSIGNED")
            #expect(order["readyAt"] == nil)

            // The vendor's ready mark keeps the rider and the status, and is logged once however often it is sent.
            for _ in 0..<2 {
                let ready = try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: vendor)
                #expect(ready.status == 200)
                #expect(ready["status"] as? String == "RIDER_ASSIGNED")
                #expect(ready["assignedRiderId"] as? String == rider.id.lowercased)
            }
            order = try await server.send(.get, "/api/v1/orders/\(orderId)", token: dispatcher)
            #expect(order["readyAt"] is String)
            let readyEvents = try await Auto.events(orderId, server, dispatcher: dispatcher).filter {
                $0["type"] as? String == "OrderReadyForPickup"
            }
            #expect(readyEvents.count == 1)
            #expect(readyEvents.first?["status"] as? String == "RIDER_ASSIGNED")

            // The delivery goes on as any other.
            let task = try #require(accepted["taskId"] as? String)
            for status in ["ARRIVED_AT_STORE", "PICKED_UP"] {
                #expect(
                    try await setup.status(task, status, rider: rider.token, lat: Auto.store.lat, lon: Auto.store.lon)
                        .status == 200)
            }
        }
    }

    @Test(
        "without a preparation time, or before the vendor has accepted it, an order is not offered before it is ready")
    func onlyWithPreparationTime() async throws {
        try await TestServer.run(.sqlite, configure: Auto.automatic()) { server in
            let dispatcher = try await server.token(.dispatcher)
            let vendor = try await server.token(.vendor)
            let setup = DeliveryScenario(
                server: server, dispatcher: dispatcher, orderId: "", customerId: UUID(), customer: "")
            let rider = try await setup.onlineRider()
            try await Auto.place(rider.id, at: Auto.store, on: server)
            // Preparing with no time given, and waiting for its vendor with one: neither is offered.
            _ = try await server.send(.post, "/api/v1/orders", token: vendor, json: Fixtures.order())
            var placed = Fixtures.order()
            placed["preparationMinutes"] = 1
            let pending = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: placed)
            #expect(pending["status"] as? String == "PENDING_VENDOR_ACCEPTANCE")
            server.clock.advance(by: 120)
            try await Task.sleep(for: .milliseconds(800))
            let offers = try await server.send(.get, "/api/v1/rider/offers", token: rider.token)
            #expect((offers["offers"] as? [Any])?.isEmpty == true)
            // Manual offers still wait for READY_FOR_PICKUP.
            let manual = try await server.send(
                .post, "/api/v1/orders/\(pending["orderId"] as! String)/offers", token: dispatcher,
                json: ["riderIds": [rider.id.lowercased]])
            #expect(manual.status == 409)
        }
    }

    @Test("preparationMinutes must be a whole number of 1 to 240: anything else is 400 naming it, and no order")
    func badPreparationTimes() async throws {
        try await TestServer.run(.sqlite) { server in
            let vendor = try await server.token(.vendor)
            for bad: Any in [0, 241, -5, "ten", 2.5] {
                var body = Fixtures.order()
                body["preparationMinutes"] = bad
                let reply = try await server.send(.post, "/api/v1/orders", token: vendor, json: body)
                #expect(reply.status == 400, "\(bad)")
                #expect(reply.text.contains("preparationMinutes"), "\(bad): \(reply.text)")
            }
            let dispatcher = try await server.token(.dispatcher)
            let listed = try await server.send(.get, "/api/v1/orders", token: dispatcher)
            #expect((listed["orders"] as? [Any])?.isEmpty == true)
        }
    }
}
