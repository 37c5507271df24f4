import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// Socket messages draw on the caller's request allowance; a caller and a tracking link hold only so many
/// sockets; a customer's socket resyncs at most once per interval; a rider's socket stops reading while its
/// messages wait for a stalled database.
@Suite("Socket allowances", .timeLimit(.minutes(2)))
struct SocketAllowanceTests {
    static func closeCode(_ follower: TrackingFollower) async throws -> (code: UInt16?, problem: String?) {
        try await follower.finished()
        let problem = follower.messages.last { $0["type"] as? String == "error" }?["problem"] as? [String: Any]
        return (follower.storage.applicationCloseCode.withLock { $0 }, problem?["code"] as? String)
    }

    @Test("a caller and a tracking link hold at most their cap of sockets (4429 past it); a closed one makes room")
    func socketCaps() async throws {
        try await TestServer.run(
            .sqlite,
            mode: .live,
            configure: {
                $0.rateLimits.socketsPerCaller = 2
                $0.rateLimits.socketsPerTrackingLink = 2
            }
        ) { server in
            let (scenario, _, _) = try await DeliveryScenario.inTransit(server)
            let dispatcher = try await server.token(.dispatcher)
            let path = DispatchStreamSocket.path
            let leaving = TrackingFollower(port: server.port, path: path, token: dispatcher, stopAfter: 1)
            let staying = TrackingFollower(port: server.port, path: path, token: dispatcher)
            try await staying.wait { $0.contains { $0["type"] as? String == "ready" } }
            try await leaving.finished()
            // The one that left made room for one more, and only one.
            let third = TrackingFollower(port: server.port, path: path, token: dispatcher)
            try await third.wait { $0.contains { $0["type"] as? String == "ready" } }
            let refused = try await Self.closeCode(TrackingFollower(port: server.port, path: path, token: dispatcher))
            #expect(refused.code == 4429)
            #expect(refused.problem == "RATE_LIMITED")
            // Another dispatcher is another caller.
            let other = TrackingFollower(port: server.port, path: path, token: try await server.token(.dispatcher))
            try await other.wait { $0.contains { $0["type"] as? String == "ready" } }

            let created = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/tracking-links", token: scenario.dispatcher)
            let link = try #require(created["token"] as? String)
            var followers: [TrackingFollower] = []
            for _ in 0..<2 {
                let follower = TrackingFollower(port: server.port, orderId: scenario.orderId, token: link)
                try await follower.wait { $0.first?["type"] as? String == "snapshot" }
                followers.append(follower)
            }
            let overLink = try await Self.closeCode(
                TrackingFollower(port: server.port, orderId: scenario.orderId, token: link))
            #expect(overLink.code == 4429)
            // The customer signed in is not the link.
            let customer = TrackingFollower(port: server.port, orderId: scenario.orderId, token: scenario.customer)
            try await customer.wait { $0.first?["type"] as? String == "snapshot" }
        }
    }

    @Test("a customer's socket messages spend the allowance its API requests spend")
    func messagesAreCharged() async throws {
        try await TestServer.run(
            .sqlite, mode: .live, configure: { $0.rateLimits.perCaller = RateRule(perSecond: 0.5, burst: 12) }
        ) { server in
            let (scenario, _, _) = try await DeliveryScenario.inTransit(server)
            let follower = TrackingFollower(port: server.port, orderId: scenario.orderId, token: scenario.customer)
            try await follower.wait { $0.first?["type"] as? String == "snapshot" }
            let seq = try #require(follower.messages.first?["seq"] as? Int)
            // Up to date already: each costs nothing but the allowance, and is answered with nothing while it lasts.
            for _ in 0..<20 { follower.send(#"{"resumeFrom": \#(seq)}"#) }
            try await follower.wait {
                $0.contains { ($0["problem"] as? [String: Any])?["code"] as? String == "RATE_LIMITED" }
            }
            let errors = follower.messages.filter { $0["type"] as? String == "error" }.count
            #expect(errors >= 5 && errors <= 9, "\(errors) of 20 refused with a burst of 12")
            let order = try await server.send(
                .get, "/api/v1/customer/orders/\(scenario.orderId)", token: scenario.customer)
            #expect(order.status == 429)
            #expect(order.code == "RATE_LIMITED")
        }
    }

    @Test("a resumeFrom that needs a new snapshot is served once per 5 s; the ones between get RATE_LIMITED")
    func resyncInterval() async throws {
        try await TestServer.run(.sqlite, mode: .live) { server in
            let (scenario, _, _) = try await DeliveryScenario.inTransit(server)
            let follower = TrackingFollower(port: server.port, orderId: scenario.orderId, token: scenario.customer)
            try await follower.wait { $0.first?["type"] as? String == "snapshot" }
            for _ in 0..<3 { follower.send(#"{"resumeFrom": 0, "stream": "another-instance"}"#) }
            try await follower.wait { $0.filter { $0["type"] as? String == "error" }.count == 2 }
            let types = follower.messages.map { $0["type"] as? String ?? "" }
            #expect(types == ["snapshot", "resync", "snapshot", "error", "error"])
            let problem = follower.messages.last?["problem"] as? [String: Any]
            #expect(problem?["code"] as? String == "RATE_LIMITED")
        }
    }

    @Test("a rider's socket stops reading while its batches wait for a stalled database, and answers each after")
    func riderBacklogDuringStall() async throws {
        try await TestServer.run(.sqlite, mode: .live, configure: { $0.rateLimits = .off }) { server in
            let rider = try await server.token(.rider)
            let socket = TrackingFollower(port: server.port, path: RiderStreamSocket.path, token: rider)
            try await socket.wait { $0.contains { $0["type"] as? String == "ready" } }
            // The store's one connection is held for 3 s: every write, the group commit's too, waits for it.
            let stall = Task {
                try await server.database.transaction { _ in try await Task.sleep(for: .seconds(3)) }
            }
            try await Task.sleep(for: .milliseconds(100))
            let start = server.clock.now().addingTimeInterval(-120)
            let batches = 60
            for index in 0..<batches {
                let fix = RiderFixes.fix(server, lat: 43.73 + Double(index) * 0.0001, secondsAgo: 0)
                var moved = fix
                moved["recordedAt"] = RFC3339.string(from: start.addingTimeInterval(Double(index)))
                let body = try JSONSerialization.data(withJSONObject: [
                    "type": "locations", "ref": "b\(index)", "fixes": [moved],
                ])
                socket.send(String(decoding: body, as: UTF8.self))
            }
            try await stall.value
            try await socket.wait(within: 20) { $0.filter { $0["type"] as? String == "ack" }.count == batches }
            let refs = socket.messages.filter { $0["type"] as? String == "ack" }.compactMap { $0["ref"] as? String }
            #expect(refs == (0..<batches).map { "b\($0)" })
            let metrics = try await server.send(.get, "/metrics").text
            #expect(metrics.contains(#"websocket_reads_held_total{stream="rider"}"#))
        }
    }
}
