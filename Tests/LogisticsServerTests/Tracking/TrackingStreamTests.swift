import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

@Suite("Live tracking over WebSocket", .timeLimit(.minutes(3)))
struct TrackingStreamTests {
    /// Opens the socket and returns the refusal: the problem's code and the close code (4000 + HTTP status). The
    /// token goes as the first message: a refusal sent together with the 101 response is what the test client now
    /// and then never delivers (seen in full runs on a busy machine).
    static func refusal(_ server: TestServer, orderId: String, token: String) async throws -> (String?, UInt16?) {
        let follower = TrackingFollower(port: server.port, orderId: orderId, token: token, tokenInFirstMessage: true)
        try await follower.finished()
        let problem = follower.messages.first?["problem"] as? [String: Any]
        #expect(follower.messages.first?["type"] as? String == "error")
        return (problem?["code"] as? String, follower.storage.applicationCloseCode.withLock { $0 })
    }

    @Test("snapshot, location, status, ended and close 1000 at delivery; refused before pickup and after the end")
    func lifecycle() async throws {
        try await TestServer.run(.sqlite, mode: .live, configure: MapFixture.monaco) { server in
            let scenario = try await DeliveryScenario.ready(server, podType: "OTP")
            let (_, rider, taskId) = try await scenario.assigned()
            let early = try await Self.refusal(server, orderId: scenario.orderId, token: scenario.customer)
            #expect(early.0 == "TRACKING_NOT_AVAILABLE")
            #expect(early.1 == 4409)
            for status in ["ARRIVED_AT_STORE", "PICKED_UP"] {
                #expect(
                    try await scenario.status(taskId, status, rider: rider, lat: 43.7396, lon: 7.4276).status == 200)
            }
            let asRider = try await Self.refusal(server, orderId: scenario.orderId, token: rider)
            #expect(asRider.0 == "FORBIDDEN")
            #expect(asRider.1 == 4403)
            let stranger = try await server.token(.customer)
            let notTheirs = try await Self.refusal(server, orderId: scenario.orderId, token: stranger)
            #expect(notTheirs.0 == "NOT_FOUND")
            #expect(notTheirs.1 == 4404)
            let forged = try await Self.refusal(server, orderId: scenario.orderId, token: scenario.customer + "x")
            #expect(forged.0 == "UNAUTHENTICATED")
            #expect(forged.1 == 4401)

            let follower = TrackingFollower(port: server.port, orderId: scenario.orderId, token: scenario.customer)
            try await follower.wait { $0.first?["type"] as? String == "snapshot" }
            let start = try #require(follower.messages.first?["seq"] as? Int)
            try await RiderFixes.post(server, rider: rider, lat: 43.7380)
            try await follower.wait { $0.contains { $0["type"] as? String == "location" } }

            try await scenario.status(taskId, "ARRIVED_AT_DESTINATION", rider: rider)
            try await scenario.deliverWithCode(taskId, rider: rider)
            try await follower.finished()
            #expect(follower.storage.closedNormally.withLock { $0 } == true)
            let messages = follower.messages
            #expect(
                messages.map { $0["type"] as? String ?? "" } == ["snapshot", "location", "status", "status", "ended"])
            #expect(messages.dropFirst().compactMap { $0["seq"] as? Int } == Array((start + 1)...(start + 4)))
            #expect(messages.last?["status"] as? String == "DELIVERED")
            // A reconnect after the end is refused.
            let late = try await Self.refusal(server, orderId: scenario.orderId, token: scenario.customer)
            #expect(late.0 == "TRACKING_ENDED")
            #expect(late.1 == 4410)
        }
    }

    @Test("20 concurrent orders: every customer receives only its own rider's positions")
    func isolation() async throws {
        try await TestServer.run(.sqlite, mode: .live) { server in
            var orders: [(scenario: DeliveryScenario, rider: String, lat: Double)] = []
            for index in 0..<20 {
                let (scenario, rider, _) = try await DeliveryScenario.inTransit(server, podType: "PHOTO")
                orders.append((scenario, rider, 43.7300 + Double(index) * 0.001))
            }
            // Each follower leaves by itself after the snapshot and one position: a clean close, no cancellation.
            let followers = orders.map {
                TrackingFollower(
                    port: server.port, orderId: $0.scenario.orderId, token: $0.scenario.customer, stopAfter: 2)
            }
            for follower in followers { try await follower.wait { $0.first?["type"] as? String == "snapshot" } }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for order in orders {
                    group.addTask { try await RiderFixes.post(server, rider: order.rider, lat: order.lat) }
                }
                try await group.waitForAll()
            }
            for (follower, order) in zip(followers, orders) {
                try await follower.finished()
                let locations = follower.messages.filter { $0["type"] as? String == "location" }
                #expect(locations.count == 1)
                for message in locations {
                    #expect(abs((message["lat"] as? Double ?? 0) - order.lat) < 1e-9)
                }
            }
        }
    }

    @Test("a reconnect with resumeFrom gets exactly the missed messages, in order")
    func resume() async throws {
        try await TestServer.run(.sqlite, mode: .live) { server in
            let (scenario, rider, _) = try await DeliveryScenario.inTransit(server)
            let first = TrackingFollower(
                port: server.port, orderId: scenario.orderId, token: scenario.customer, stopAfter: 2)
            try await first.wait { $0.first?["type"] as? String == "snapshot" }
            try await RiderFixes.post(server, rider: rider, lat: 43.7380)
            try await first.finished()  // left after snapshot + one location
            let seen = try #require(first.messages.last?["seq"] as? Int)

            // Missed while away: two moves of more than 25 m.
            try await RiderFixes.post(server, rider: rider, lat: 43.7400, after: 1)
            try await RiderFixes.post(server, rider: rider, lat: 43.7420, after: 2)
            let second = TrackingFollower(
                port: server.port, orderId: scenario.orderId, token: scenario.customer, resumeFrom: seen)
            try await second.wait { messages in
                messages.contains { $0["seq"] as? Int == seen + 2 && $0["type"] as? String == "location" }
            }
            let replayed = second.messages.filter { $0["type"] as? String != "snapshot" }
            #expect(replayed.compactMap { $0["seq"] as? Int } == [seen + 1, seen + 2])
            #expect(replayed.compactMap { $0["lat"] as? Double } == [43.7400, 43.7420])

            // The same seq from another stream (another instance, a channel opened again) is not trusted.
            let stream = try #require(second.messages.first?["stream"] as? String)
            let foreign = TrackingFollower(
                port: server.port, orderId: scenario.orderId, token: scenario.customer, resumeFrom: seen,
                stream: "another-instance")
            try await foreign.wait { $0.filter { $0["type"] as? String == "snapshot" }.count == 2 }
            #expect(foreign.messages.map { $0["type"] as? String ?? "" } == ["snapshot", "resync", "snapshot"])
            let same = TrackingFollower(
                port: server.port, orderId: scenario.orderId, token: scenario.customer, resumeFrom: seen,
                stream: stream)
            try await same.wait { $0.count >= 3 }
            #expect(same.messages.dropFirst().compactMap { $0["seq"] as? Int } == [seen + 1, seen + 2])
        }
    }

    @Test("tracking links: who may create them, the stream accepts them for their order only; token as first message")
    func trackingLinks() async throws {
        try await TestServer.run(.sqlite, mode: .live) { server in
            let (scenario, rider, _) = try await DeliveryScenario.inTransit(server)
            let (other, _, _) = try await DeliveryScenario.inTransit(server)
            let path = "/api/v1/orders/\(scenario.orderId)/tracking-links"
            #expect(try await server.send(.post, path, token: rider).status == 403)
            #expect(try await server.send(.post, path, token: try await server.token(.customer)).status == 404)
            #expect(try await server.send(.post, path, token: scenario.dispatcher).status == 201)
            let created = try await server.send(.post, path, token: scenario.customer)
            #expect(created.status == 201)
            let link = try #require(created["token"] as? String)
            // Absolute, for a link texted to someone: when no public URL is set, on the address the caller used or the listen address.
            let url = try #require(created["url"] as? String)
            #expect(url.hasPrefix("http://") && url.hasSuffix("/track/\(link)"), "\(url)")

            let viaLink = TrackingFollower(port: server.port, orderId: scenario.orderId, token: link)
            try await viaLink.wait { $0.first?["type"] as? String == "snapshot" }
            try await RiderFixes.post(server, rider: rider, lat: 43.7380)
            try await viaLink.wait { $0.contains { $0["type"] as? String == "location" } }

            let wrongOrder = try await Self.refusal(server, orderId: other.orderId, token: link)
            #expect(wrongOrder.1 == 4404)
            let forged = try await Self.refusal(
                server, orderId: scenario.orderId, token: TrackingLinksFixture.tampered(link))
            #expect(forged.1 == 4401)

            let firstMessage = TrackingFollower(
                port: server.port, orderId: other.orderId, token: other.customer, tokenInFirstMessage: true)
            try await firstMessage.wait { $0.first?["type"] as? String == "snapshot" }

            // An order that has ended gets no new link.
            let cancelled = try await server.send(
                .post, "/api/v1/orders/\(other.orderId)/cancel", token: other.dispatcher, json: ["reason": "test"])
            #expect(cancelled.status == 200)
            let ended = try await server.send(
                .post, "/api/v1/orders/\(other.orderId)/tracking-links", token: other.dispatcher)
            #expect(ended.status == 410)
            #expect(ended.code == "TRACKING_ENDED")
        }
    }

    @Test("the dispatch stream carries every rider's fixes and every order event, for dispatchers only")
    func dispatchStream() async throws {
        try await TestServer.run(.sqlite, mode: .live) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let path = "/api/v1/dispatch/stream"
            let refused = TrackingFollower(port: server.port, path: path, token: scenario.customer)
            try await refused.finished()
            #expect(refused.storage.applicationCloseCode.withLock { $0 } == 4403)

            let watcher = TrackingFollower(port: server.port, path: path, token: scenario.dispatcher)
            try await watcher.wait { $0.first?["type"] as? String == "ready" }
            let metrics = try await server.send(.get, "/metrics")
            #expect(metrics.text.contains(#"websocket_connections{stream="dispatch"} 1"#))
            let (riderId, rider, taskId) = try await scenario.assigned()
            try await RiderFixes.post(server, rider: rider, lat: 43.7390)
            #expect(
                try await scenario.status(taskId, "ARRIVED_AT_STORE", rider: rider, lat: 43.7396, lon: 7.4276).status
                    == 200)
            try await watcher.wait { messages in
                messages.contains {
                    $0["type"] as? String == "riderLocation" && $0["riderId"] as? String == riderId.lowercased
                }
                    && messages.contains {
                        ($0["event"] as? [String: Any])?["status"] as? String == "ARRIVED_AT_STORE"
                    }
            }
            let event = try #require(watcher.messages.compactMap { $0["event"] as? [String: Any] }.first)
            #expect(event["orderId"] as? String == scenario.orderId)
            let location = try #require(watcher.messages.first { $0["type"] as? String == "riderLocation" })
            #expect(location["lat"] as? Double == 43.7390)
        }
    }
}
