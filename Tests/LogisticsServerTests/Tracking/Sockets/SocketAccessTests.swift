import Foundation
import LogisticsCore
import LogisticsStore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// Open sockets follow their holder's access, not only their token: a suspended rider and a revoked tracking link
/// lose their streams within a second with 4403.
@Suite("Sockets follow access", .timeLimit(.minutes(3)))
struct SocketAccessTests {
    @Test(
        "a rider suspended through the API, or by another instance, loses the rider stream with 4403",
        arguments: StoreKind.available)
    func suspendedRider(store: StoreKind) async throws {
        try await TestServer.run(store, mode: .live) { server in
            let admin = try await server.token(.admin)
            let (byAPI, elsewhere) = (UUID(), UUID())
            let sockets = [
                TrackingFollower(
                    port: server.port, path: RiderStreamSocket.path, token: try await server.token(.rider, byAPI)),
                TrackingFollower(
                    port: server.port, path: RiderStreamSocket.path, token: try await server.token(.rider, elsewhere)),
            ]
            for socket in sockets { try await socket.wait { $0.contains { $0["type"] as? String == "ready" } } }

            #expect(
                try await server.send(.post, "/api/v1/riders/\(byAPI.lowercased)/suspend", token: admin).status == 200)
            // Another instance suspends in the shared database; this one hears of it only from its watch.
            try await server.database.query(
                "UPDATE riders SET suspended = ? WHERE id = ?", [.bool(true), .uuid(elsewhere)])
            // Timed from the moment both suspensions are stored: the requests themselves waited over a second for
            // the database on a loaded run, which says nothing about the sockets.
            let started = ContinuousClock.now
            for socket in sockets {
                try await socket.finished()
                #expect(socket.storage.applicationCloseCode.withLock { $0 } == 4403)
                let problem = socket.messages.compactMap { $0["problem"] as? [String: Any] }.first
                #expect(problem?["code"] as? String == "FORBIDDEN")
                #expect((problem?["detail"] as? String)?.contains("suspended") == true)
            }
            let took = ContinuousClock.now - started
            // The watch looks twice a second; the time also holds both clients noticing their close.
            #expect(took < .seconds(4), "closed \(took) after the suspension")
            // The API stops trusting this instance's cached standing at once, not after its 30 s.
            let elsewhereToken = try await server.token(.rider, elsewhere)
            #expect(try await server.send(.get, "/api/v1/rider/me", token: elsewhereToken).status == 403)
            // A suspended rider cannot open it again.
            let again = TrackingFollower(
                port: server.port, path: RiderStreamSocket.path, token: try await server.token(.rider, byAPI))
            try await again.finished()
            #expect(again.storage.applicationCloseCode.withLock { $0 } == 4403)
        }
    }

    @Test(
        "a revoked tracking link closes its sockets with 4403 and its page and snapshot answer 403; a new link resumes")
    func revokedLink() async throws {
        try await TestServer.run(.sqlite, mode: .live) { server in
            let (scenario, rider, _) = try await DeliveryScenario.inTransit(server)
            let links = "/api/v1/orders/\(scenario.orderId)/tracking-links"
            let created = try await server.send(.post, links, token: scenario.customer)
            let token = try #require(created["token"] as? String)
            let linkId = try #require(created["linkId"] as? String)
            let follower = TrackingFollower(port: server.port, orderId: scenario.orderId, token: token)
            try await follower.wait { $0.first?["type"] as? String == "snapshot" }
            try await RiderFixes.post(server, rider: rider, lat: 43.7380)
            try await follower.wait { $0.contains { $0["type"] as? String == "location" } }

            // Only those who may see the order revoke its links.
            let stranger = try await server.token(.customer)
            #expect(try await server.send(.delete, "\(links)/\(linkId)", token: stranger).status == 404)
            #expect(
                try await server.send(.delete, "\(links)/\(UUID().lowercased)", token: scenario.customer).status == 404)
            let started = ContinuousClock.now
            #expect(try await server.send(.delete, "\(links)/\(linkId)", token: scenario.customer).status == 204)
            try await follower.finished()
            #expect(ContinuousClock.now - started < .seconds(4))
            #expect(follower.storage.applicationCloseCode.withLock { $0 } == 4403)
            let seen = try #require(follower.messages.compactMap { $0["seq"] as? Int }.last)

            #expect(try await server.send(.get, "/track/\(token)/snapshot").status == 403)
            #expect(try await server.send(.get, "/track/\(token)").status == 403)
            let refused = try await TrackingStreamTests.refusal(server, orderId: scenario.orderId, token: token)
            #expect(refused.1 == 4403)
            // Revoking again changes nothing.
            #expect(try await server.send(.delete, "\(links)/\(linkId)", token: scenario.dispatcher).status == 204)

            let fresh = try #require(try await server.send(.post, links, token: scenario.customer)["token"] as? String)
            try await RiderFixes.post(server, rider: rider, lat: 43.7390, after: 1)
            let resumed = TrackingFollower(port: server.port, orderId: scenario.orderId, token: fresh, resumeFrom: seen)
            try await resumed.wait { messages in
                messages.contains { $0["seq"] as? Int == seen + 1 && $0["type"] as? String == "location" }
            }
        }
    }

    @Test("a link shows the order's end for the configured time after it, then 410 with nothing about the order")
    func linkExpires() async throws {
        try await TestServer.run(.sqlite, configure: { $0.tracking.linkHoursAfterEnd = 1 }) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let created = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/tracking-links", token: scenario.dispatcher)
            let token = try #require(created["token"] as? String)
            #expect(
                try await server.send(
                    .post, "/api/v1/orders/\(scenario.orderId)/cancel", token: scenario.dispatcher,
                    json: ["reason": "customer moved"]
                ).status == 200)
            let within = try await server.send(.get, "/track/\(token)")
            #expect(within.status == 410)
            #expect(within.text.lowercased().contains("cancel"))

            server.clock.advance(by: 3601)
            let after = try await server.send(.get, "/track/\(token)")
            #expect(after.status == 410)
            #expect(!after.text.lowercased().contains("cancel"))
            let snapshot = try await server.send(.get, "/track/\(token)/snapshot")
            #expect(snapshot.status == 410)
            #expect(snapshot.code == "TRACKING_ENDED")
            #expect(snapshot["currentStatus"] == nil, "the expired link says nothing about the order")
            #expect(!snapshot.text.contains("CANCELLED"))
        }
    }

    @Test("a link made before links were stored still opens its running order")
    func legacyLink() async throws {
        try await TestServer.run(.sqlite) { server in
            let (scenario, _, _) = try await DeliveryScenario.inTransit(server)
            let legacy = server.components.trackingLinks.legacyToken(orderId: UUID(uuidString: scenario.orderId)!)
            #expect(try await server.send(.get, "/track/\(legacy)/snapshot").status == 200)
        }
    }
}
