import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// A socket whose client reads nothing is cut by the ping timeout at any traffic, on every stream, and the client
/// sees it without reading: the cut is a reset, not a close queued behind what it never read.
@Suite("Silent sockets at low traffic", .timeLimit(.minutes(2)))
struct SilentSocketTests {
    @Test(
        "a dispatcher, a rider and a customer that never read are cut within two ping intervals",
        arguments: StoreKind.available)
    func cutAtLowTraffic(kind: StoreKind) async throws {
        // Pings every second; the default is 20 s, and everything else is as in production.
        try await TestServer.run(kind, mode: .live, configure: { $0.tracking.socketPingSeconds = 1 }) { server in
            let (scenario, rider, _) = try await DeliveryScenario.inTransit(server)
            let dispatcher = try await server.token(.dispatcher)
            var silent: [(String, RawSocket)] = []
            for (name, path, token) in [
                ("dispatcher", DispatchStreamSocket.path, dispatcher),
                ("dispatcher", DispatchStreamSocket.path, dispatcher),
                ("rider", RiderStreamSocket.path, try await server.token(.rider, name: "Silent rider")),
                ("customer", "/api/v1/customer/orders/\(scenario.orderId)/tracking", scenario.customer),
            ] {
                let socket = try RawSocket(port: server.port, receiveBuffer: 4096)
                #expect(try await socket.upgrade(path: path, token: token), "\(name)")
                silent.append((name, socket))
            }
            let healthy = TrackingFollower(port: server.port, path: DispatchStreamSocket.path, token: dispatcher)
            try await healthy.wait { $0.contains { $0["type"] as? String == "ready" } }

            // First more than the silent clients' receive buffers hold (300 fixes 44 m apart, each a dispatcher and a
            // customer message: ~60 KB, far below the 1,000-message backlog), so the server's kernel is left holding
            // data for them; then one fix every 0.2 s for as long as the cut may take.
            var posted = 0
            let start = server.clock.now().addingTimeInterval(-600)
            for _ in 0..<5 {
                let fixes = (0..<60).map { _ -> [String: Any] in
                    defer { posted += 1 }
                    return [
                        "lat": 43.70 + Double(posted) * 0.0004, "lon": 7.42, "accuracyM": 5, "speedMps": 6,
                        "headingDeg": 0, "recordedAt": RFC3339.string(from: start.addingTimeInterval(Double(posted))),
                    ]
                }
                let reply = try await server.send(
                    .post, "/api/v1/rider/locations", token: rider, json: ["fixes": fixes])
                #expect(reply.status == 202)
            }
            let started = ContinuousClock.now
            while ContinuousClock.now - started < .seconds(4) {
                try await RiderFixes.post(server, rider: rider, lat: 43.74 + Double(posted) * 0.0004)
                posted += 1
                server.clock.advance(by: 1)
                try await Task.sleep(for: .milliseconds(200))
            }
            for (name, socket) in silent {
                #expect(await socket.waitUntilEnded(within: .seconds(3)), "the silent \(name) socket was not cut")
            }
            // The healthy follower answers its pings and keeps its socket.
            try await healthy.wait { $0.filter { $0["type"] as? String == "riderLocation" }.count >= posted }
            #expect(healthy.storage.closedNormally.withLock { $0 } == nil)
            let metrics = try await server.send(.get, "/metrics").text
            #expect(metrics.contains(#"websocket_cut_off_total{stream="dispatch",reason="ping"} 2"#))
        }
    }
}
