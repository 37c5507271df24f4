import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

@Suite("Live tracking: snapshot and the in-process hub", .timeLimit(.minutes(3)))
struct TrackingSnapshotTests {
    @Test(
        "409 before pickup; position, stale flag and ETA in transit; status and ended reach followers; 410 after",
        arguments: StoreKind.available)
    func snapshotLifecycle(kind: StoreKind) async throws {
        try await TestServer.run(kind, configure: MapFixture.monaco) { server in
            let scenario = try await DeliveryScenario.ready(server, podType: "OTP")
            let (_, rider, taskId) = try await scenario.assigned()
            let path = "/api/v1/customer/orders/\(scenario.orderId)/tracking"

            let early = try await server.send(.get, path, token: scenario.customer)
            #expect(early.status == 409)
            #expect(early.code == "TRACKING_NOT_AVAILABLE")
            #expect(try await server.send(.get, path, token: rider).status == 403)
            let stranger = try await server.token(.customer)
            #expect(try await server.send(.get, path, token: stranger).status == 404)

            for status in ["ARRIVED_AT_STORE", "PICKED_UP"] {
                #expect(
                    try await scenario.status(taskId, status, rider: rider, lat: 43.7396, lon: 7.4276).status == 200)
            }
            let first = try await server.send(.get, path, token: scenario.customer)
            #expect(first.status == 200, "\(first.text)")
            #expect(first["type"] as? String == "snapshot")
            #expect(first["status"] as? String == "IN_TRANSIT")
            #expect(first["stale"] as? Bool == true)
            let orderId = try #require(UUID(uuidString: scenario.orderId))
            let (startSeq, stream) = try #require(server.components.tracking.subscribe(orderId: orderId))

            func post(_ lat: Double, _ lon: Double, accuracy: Double, after seconds: TimeInterval) async throws {
                let fix: [String: Any] = [
                    "lat": lat, "lon": lon, "accuracyM": accuracy, "speedMps": 7, "headingDeg": 200,
                    "recordedAt": RFC3339.string(from: server.clock.now().addingTimeInterval(seconds)),
                ]
                let reply = try await server.send(
                    .post, "/api/v1/rider/locations", token: rider, json: ["fixes": [fix]])
                #expect(reply.status == 202)
            }
            try await post(43.7380, 7.4262, accuracy: 6, after: 0)
            try await post(43.7390, 7.4270, accuracy: 150, after: 1)  // too inaccurate to show a customer
            let moving = try await server.send(.get, path, token: scenario.customer)
            let position = try #require(moving["rider"] as? [String: Any])
            #expect(position["lat"] as? Double == 43.7380)
            #expect(moving["stale"] as? Bool == false)
            #expect((moving["etaSeconds"] as? Int ?? 0) > 0)
            #expect((moving["remainingDistanceM"] as? Double ?? 0) > 100)
            #expect(moving["seq"] as? Int == startSeq + 1)
            // The customer's order view carries the same live facts.
            let view = try await server.send(
                .get, "/api/v1/customer/orders/\(scenario.orderId)", token: scenario.customer)
            let tracking = try #require(view["tracking"] as? [String: Any])
            #expect(tracking["available"] as? Bool == true)
            #expect((tracking["lastKnown"] as? [String: Any])?["lat"] as? Double == 43.7380)
            #expect(tracking["stale"] as? Bool == false)
            #expect((view["etaSeconds"] as? Int ?? 0) > 0)

            // No fix for 15 s: stale, with the last position and its time kept.
            server.clock.advance(by: 16)
            let silent = try await server.send(.get, path, token: scenario.customer)
            #expect(silent["stale"] as? Bool == true)
            #expect((silent["rider"] as? [String: Any])?["lat"] as? Double == 43.7380)
            // The sweeper (once a second) tells followers too.
            try await Self.waitFor(server, orderId, after: startSeq) { if case .stale = $0 { true } else { false } }

            try await scenario.status(taskId, "ARRIVED_AT_DESTINATION", rider: rider)
            try await scenario.deliverWithCode(taskId, rider: rider)

            // The follower sees, in seq order: the location, stale, the status changes and ended; then the stream ends.
            let received: [TrackingMessage]
            let collector = Task {
                var messages: [TrackingMessage] = []
                for await message in stream { messages.append(message) }
                return messages
            }
            try await Self.waitFor(server, orderId, after: startSeq) { if case .ended = $0 { true } else { false } }
            received = try await TestServer.answered(within: .seconds(20), "the end of the hub stream") {
                await collector.value
            }
            #expect(received.map(\.seq) == Array((startSeq + 1)...(startSeq + received.count)))
            guard case .location(let seq, let shown) = received.first else {
                Issue.record("the first message should be the rider's position, got \(received)")
                return
            }
            #expect(seq == startSeq + 1)
            #expect(shown.lat == 43.7380)
            #expect(received.contains { if case .stale = $0 { true } else { false } })
            #expect(received.contains(.ended(seq: received.last?.seq ?? 0, status: .delivered)))
            #expect(received.last.map { if case .ended = $0 { true } else { false } } == true)

            let after = try await server.send(.get, path, token: scenario.customer)
            #expect(after.status == 410)
            #expect(after.code == "TRACKING_ENDED")
        }
    }

    /// Waits (up to 10 s) until the hub's history for the order holds a message matching `match`.
    static func waitFor(
        _ server: TestServer, _ orderId: UUID, after seq: Int, _ match: (TrackingMessage) -> Bool
    ) async throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if case .messages(let all) = server.components.tracking.replay(orderId: orderId, after: seq),
                all.contains(where: match)
            {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("no matching tracking message within 10 s")
    }
}
