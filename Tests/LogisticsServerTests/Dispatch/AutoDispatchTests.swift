import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// Automatic dispatch against a real server on Monaco's roads: who is asked first, what happens on a decline and a
/// lapse, when dispatchers take over, and that racing dispatchers never open two offers for one order.
@Suite("Automatic dispatch", .timeLimit(.minutes(3)))
struct AutoDispatchTests {
    static let store = GeoPoint(lat: 43.7396, lon: 7.4276)

    static func automatic(rounds: Int = 3) -> @Sendable (inout ServerConfiguration) -> Void {
        { configuration in
            MapFixture.monaco(&configuration)
            configuration.dispatch.automatic = .everyVendor
            configuration.dispatch.rounds = rounds
            configuration.dispatch.sweepSeconds = 0.2
        }
    }

    /// Puts a rider at a position, as their last fix would.
    static func place(_ rider: UUID, at point: GeoPoint, on server: TestServer) async throws {
        try await server.database.query(
            "UPDATE riders SET last_lat = ?, last_lon = ?, last_fix_at = ? WHERE id = ?",
            [.double(point.lat), .double(point.lon), .date(server.clock.now()), .uuid(rider)])
    }

    /// The rider's open offer, once there is one.
    static func offer(for rider: String, on server: TestServer) async throws -> [String: Any]? {
        try await eventually {
            let reply = try await server.send(.get, "/api/v1/rider/offers", token: rider)
            return (reply["offers"] as? [[String: Any]])?.first
        }
    }

    static func events(_ orderId: String, _ server: TestServer, dispatcher: String) async throws -> [[String: Any]] {
        try await server.send(.get, "/api/v1/orders/\(orderId)/events", token: dispatcher)["events"] as? [[String: Any]]
            ?? []
    }

    @Test("the quickest rider by road is asked first; a decline and a lapse move on at once; then dispatchers")
    func roundsThenDispatchers() async throws {
        try await TestServer.run(.sqlite, configure: Self.automatic(rounds: 3)) { server in
            // A rider nearer than all, busy with another order: never asked (RDR-BR-001).
            let busy = try await DeliveryScenario.ready(server).assigned()
            try await Self.place(busy.riderId, at: Self.store, on: server)
            let dispatcher = try await server.token(.dispatcher)
            let riders = DeliveryScenario(
                server: server, dispatcher: dispatcher, orderId: "", customerId: UUID(), customer: "")
            let near = try await riders.onlineRider(name: "Near")
            let middle = try await riders.onlineRider(name: "Middle")
            let far = try await riders.onlineRider(name: "Far")
            try await Self.place(near.id, at: GeoPoint(lat: 43.7392, lon: 7.4262), on: server)
            try await Self.place(middle.id, at: GeoPoint(lat: 43.7347, lon: 7.4206), on: server)
            try await Self.place(far.id, at: GeoPoint(lat: 43.7289, lon: 7.4170), on: server)
            let setup = try await DeliveryScenario.ready(server)

            let first = try #require(try await Self.offer(for: near.token, on: server), "nobody was offered the order")
            #expect(first["orderId"] as? String == setup.orderId)
            var made = try await Self.events(setup.orderId, server, dispatcher: setup.dispatcher).filter {
                $0["type"] as? String == "OffersMade"
            }
            let details = try #require(made.first?["details"] as? [String: String])
            #expect(details["automatic"] == "true")
            #expect(details["round"] == "1")
            #expect(details["reason"]?.contains("quickest free rider") == true, "\(details)")
            let considered = details["considered"] ?? ""
            #expect(considered.hasPrefix(near.id.lowercased + ":"), "\(considered)")
            #expect(considered.contains(middle.id.lowercased) && considered.contains(far.id.lowercased))
            #expect(!considered.contains(busy.riderId.lowercased), "a rider on a task was considered")

            // A decline moves on at once, to the next quickest.
            let declined = try await server.send(
                .post, "/api/v1/rider/offers/\(first["offerId"] as! String)/decline", token: near.token)
            #expect(declined.status == 200)
            let second = try #require(try await Self.offer(for: middle.token, on: server))
            #expect(second["orderId"] as? String == setup.orderId)

            // A lapse too: past the offer's time, the last rider is asked.
            server.clock.advance(by: 61)
            let third = try #require(try await Self.offer(for: far.token, on: server))
            #expect(third["orderId"] as? String == setup.orderId)
            _ = try await server.send(
                .post, "/api/v1/rider/offers/\(third["offerId"] as! String)/decline", token: far.token)

            // Three rounds: dispatchers are told, with the reason, and nobody else is asked.
            let escalated = try await eventually {
                try await Self.events(setup.orderId, server, dispatcher: setup.dispatcher).first {
                    $0["type"] as? String == "DispatchEscalated"
                }
            }
            let reason = (escalated?["details"] as? [String: String])?["reason"] ?? ""
            #expect(reason.contains("after 3 offers"), "\(reason)")
            try await Task.sleep(for: .milliseconds(600))
            made = try await Self.events(setup.orderId, server, dispatcher: setup.dispatcher).filter {
                $0["type"] as? String == "OffersMade"
            }
            #expect(made.count == 3)
            // Dispatchers can still offer it by hand.
            let manual = try await server.send(
                .post, "/api/v1/orders/\(setup.orderId)/offers", token: setup.dispatcher,
                json: ["riderIds": [near.id.lowercased]])
            #expect(manual.status == 201)
        }
    }

    @Test("riders equally near by road: the one who has waited longest is asked")
    func longestWaitBreaksTies() async throws {
        try await TestServer.run(.sqlite, configure: Self.automatic()) { server in
            let dispatcher = try await server.token(.dispatcher)
            let setup = DeliveryScenario(
                server: server, dispatcher: dispatcher, orderId: "", customerId: UUID(), customer: "")
            let recent = try await setup.onlineRider(name: "Recent")
            let patient = try await setup.onlineRider(name: "Patient")
            let spot = GeoPoint(lat: 43.7380, lon: 7.4250)
            for rider in [recent.id, patient.id] { try await Self.place(rider, at: spot, on: server) }
            let now = server.clock.now()
            try await server.database.query(
                "UPDATE riders SET free_since = ? WHERE id = ?", [.date(now.addingTimeInterval(-60)), .uuid(recent.id)])
            try await server.database.query(
                "UPDATE riders SET free_since = ? WHERE id = ?",
                [.date(now.addingTimeInterval(-900)), .uuid(patient.id)])
            let order = try await DeliveryScenario.ready(server)
            let offer = try #require(try await Self.offer(for: patient.token, on: server))
            #expect(offer["orderId"] as? String == order.orderId)
            let recentOffers = try await server.send(.get, "/api/v1/rider/offers", token: recent.token)
            #expect((recentOffers["offers"] as? [Any])?.isEmpty == true)
            let made = try await Self.events(order.orderId, server, dispatcher: dispatcher).first {
                $0["type"] as? String == "OffersMade"
            }
            let reason = (made?["details"] as? [String: String])?["reason"] ?? ""
            #expect(reason.contains("waited longest of 2"), "\(reason)")
        }
    }

    @Test("no free rider within reach: dispatchers are told at once, with who was considered")
    func nobodyInReach() async throws {
        try await TestServer.run(
            .sqlite,
            configure: {
                Self.automatic()(&$0)
                $0.dispatch.ranking.maxRoadSeconds = 60
            }
        ) { server in
            let setup = try await DeliveryScenario.ready(server)
            let far = try await setup.onlineRider()
            try await Self.place(far.id, at: GeoPoint(lat: 43.7289, lon: 7.4170), on: server)
            let escalated = try await eventually {
                try await Self.events(setup.orderId, server, dispatcher: setup.dispatcher).first {
                    $0["type"] as? String == "DispatchEscalated"
                }
            }
            let details = try #require(escalated?["details"] as? [String: String])
            #expect(details["reason"]?.contains("within 60 s") == true, "\(details)")
            #expect(details["considered"]?.contains(far.id.lowercased) == true)
        }
    }

    @Test("twenty dispatchers deciding on one order at once open exactly one offer", arguments: StoreKind.available)
    func racingDispatchers(kind: StoreKind) async throws {
        try await TestServer.run(kind, configure: Self.automatic()) { server in
            let dispatcher = try #require(server.components.autoDispatcher)
            let dispatcherToken = try await server.token(.dispatcher)
            let setup = DeliveryScenario(
                server: server, dispatcher: dispatcherToken, orderId: "", customerId: UUID(), customer: "")
            for index in 0..<5 {
                let rider = try await setup.onlineRider()
                try await Self.place(
                    rider.id, at: GeoPoint(lat: 43.7380 - Double(index) * 0.001, lon: 7.4250), on: server)
            }
            let order = try await DeliveryScenario.ready(server)
            let orderId = try #require(UUID(uuidString: order.orderId))
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<20 { group.addTask { await dispatcher.dispatchAwaiting(only: orderId) } }
            }
            let open = try await server.database.query(
                "SELECT rider_id FROM offers WHERE order_id = ? AND status = 'OPEN'", [.uuid(orderId)])
            #expect(open.count == 1, "\(open.count) open offers")
        }
    }

    @Test("off, or on for other vendors only: a ready order waits for a dispatcher")
    func scope() async throws {
        let vendor = UUID()
        try await TestServer.run(
            .sqlite,
            configure: {
                Self.automatic()(&$0)
                $0.dispatch.automatic = .vendors([vendor])
            }
        ) { server in
            let dispatcher = try await server.token(.dispatcher)
            let setup = DeliveryScenario(
                server: server, dispatcher: dispatcher, orderId: "", customerId: UUID(), customer: "")
            let rider = try await setup.onlineRider()
            try await Self.place(rider.id, at: Self.store, on: server)
            // A dispatcher's order belongs to no vendor on the list: nobody is asked.
            let other = try await DeliveryScenario.ready(server)
            try await Task.sleep(for: .milliseconds(800))
            let none = try await server.send(.get, "/api/v1/rider/offers", token: rider.token)
            #expect((none["offers"] as? [Any])?.isEmpty == true)
            // The listed vendor's order is offered.
            let vendorToken = try await server.token(.vendor, vendor)
            let created = try await server.send(.post, "/api/v1/orders", token: vendorToken, json: Fixtures.order())
            let orderId = try #require(created["orderId"] as? String)
            #expect(try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: vendorToken).status == 200)
            let offer = try #require(try await Self.offer(for: rider.token, on: server))
            #expect(offer["orderId"] as? String == orderId)
            #expect(offer["orderId"] as? String != other.orderId)
        }
    }

    @Test("LOGISTICS_AUTO_DISPATCH: on, off, vendor ids; anything else is a readable error")
    func configuration() throws {
        let vendor = UUID()
        #expect(try ServerConfiguration.fromEnvironment([:]).dispatch.automatic == .off)
        #expect(
            try ServerConfiguration.fromEnvironment(["LOGISTICS_AUTO_DISPATCH": "on"]).dispatch.automatic
                == .everyVendor)
        #expect(
            try ServerConfiguration.fromEnvironment(["LOGISTICS_AUTO_DISPATCH": vendor.uuidString]).dispatch.automatic
                == .vendors([vendor]))
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.fromEnvironment(["LOGISTICS_AUTO_DISPATCH": "sometimes"])
        }
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.fromEnvironment(["LOGISTICS_AUTO_DISPATCH_ROUNDS": "0"])
        }
    }
}
