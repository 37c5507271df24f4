import Foundation
import LogisticsCore
import LogisticsStore
import Testing

@testable import TestSupport

@Suite("Rider location ingest", .timeLimit(.minutes(3)))
struct LocationIngestTests {
    static func stored(_ server: TestServer, _ riderId: UUID) async throws -> (rows: Int, lastLat: Double?) {
        let rows = try await server.count("rider_locations", "rider_id = ?", [.uuid(riderId)])
        let last = try await server.database.first("SELECT last_lat FROM riders WHERE id = ?", [.uuid(riderId)])
        return (rows, last?.optionalDouble("last_lat"))
    }

    @Test("a batch with any bad fix is 400 with the field named, and nothing is stored", arguments: StoreKind.available)
    func badBatches(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let riderId = UUID()
            let rider = try await server.token(.rider, riderId)
            let good = RiderFixes.fix(server, lat: 43.73, secondsAgo: 5)
            #expect(
                try await server.send(.post, "/api/v1/rider/locations", token: rider, json: ["fixes": [good]]).status
                    == 202)
            let before = try await Self.stored(server, riderId)

            var lat91 = RiderFixes.fix(server, lat: 43.74, secondsAgo: 1)
            lat91["lat"] = 91
            var future = RiderFixes.fix(server, lat: 43.74, secondsAgo: -600)
            future["lat"] = 43.75
            var nanText = RiderFixes.fix(server, lat: 43.74, secondsAgo: 1)
            nanText["lon"] = "NaN"
            var badHeading = RiderFixes.fix(server, lat: 43.74, secondsAgo: 1)
            badHeading["headingDeg"] = 360
            let cases: [(Any, String)] = [
                ([RiderFixes.fix(server, lat: 43.74, secondsAgo: 2), lat91], "fixes[1].lat"),
                ([future], "fixes[0].recordedAt"),
                ([nanText], "fixes[0].lon"),
                ([badHeading], "fixes[0].headingDeg"),
                (Array(repeating: RiderFixes.fix(server, lat: 43.74, secondsAgo: 1), count: 501), "fixes"),
                ([[String: Any]](), "fixes"),
                ([["lat": 43.7]], "fixes[0].lon"),
            ]
            for (fixes, field) in cases {
                let reply = try await server.send(
                    .post, "/api/v1/rider/locations", token: rider, json: ["fixes": fixes])
                #expect(reply.status == 400)
                #expect(reply.code == "VALIDATION_FAILED")
                let fields = (reply["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String } ?? []
                #expect(fields.contains(field), "expected \(field) in \(fields)")
            }
            // Not JSON at all, and NaN as a bare literal (not JSON either).
            for raw in [#"{"fixes": [{"lat": 43.7, "lon": NaN}]}"#, "{fixes"] {
                let reply = try await server.send(
                    .post, "/api/v1/rider/locations", token: rider, raw: Data(raw.utf8), contentType: "application/json"
                )
                #expect(reply.status == 400)
                #expect(reply.contentType == "application/problem+json")
            }
            let after = try await Self.stored(server, riderId)
            #expect(after.rows == before.rows)
            #expect(after.lastLat == before.lastLat)
            let customer = try await server.token(.customer)
            #expect(
                try await server.send(.post, "/api/v1/rider/locations", token: customer, json: ["fixes": [good]])
                    .status == 403)
        }
    }

    @Test(
        "duplicates are dropped, late fixes are kept without moving the rider back, the history is thinned",
        arguments: StoreKind.available)
    func intakeRules(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let riderId = UUID()
            let rider = try await server.token(.rider, riderId)
            // Standing still for 30 s, one fix a second: the history keeps one fix per 10 s.
            let still = (0..<30).map { RiderFixes.fix(server, lat: 43.7300, secondsAgo: Double(100 - $0)) }
            let first = try await server.send(.post, "/api/v1/rider/locations", token: rider, json: ["fixes": still])
            #expect(first.status == 202)
            #expect(first["accepted"] as? Int == 30)
            #expect(try await Self.stored(server, riderId).rows == 3)

            // The same batch again (a retry after a lost response): all duplicates, nothing new stored.
            let again = try await server.send(.post, "/api/v1/rider/locations", token: rider, json: ["fixes": still])
            #expect(again["accepted"] as? Int == 0)
            #expect(again["duplicates"] as? Int == 30)
            #expect(try await Self.stored(server, riderId).rows == 3)

            // Moving 30 m a second: every fix is kept.
            let moving = (0..<5).map {
                RiderFixes.fix(server, lat: 43.7310 + Double($0) * 0.0003, secondsAgo: Double(60 - $0))
            }
            _ = try await server.send(.post, "/api/v1/rider/locations", token: rider, json: ["fixes": moving])
            #expect(try await Self.stored(server, riderId).rows == 8)
            #expect(try await Self.stored(server, riderId).lastLat == 43.7322)

            // A late fix from before: stored, but the rider does not jump back.
            let late = RiderFixes.fix(server, lat: 43.6000, secondsAgo: 80)
            _ = try await server.send(.post, "/api/v1/rider/locations", token: rider, json: ["fixes": [late]])
            #expect(try await Self.stored(server, riderId) == (9, 43.7322))

            // Too old to use: rejected, not stored. Poor accuracy: stored and dispatch sees it, customers do not.
            let ancient = RiderFixes.fix(server, lat: 43.7, secondsAgo: 25 * 3600)
            let vague = RiderFixes.fix(server, lat: 43.7400, secondsAgo: 30, accuracyM: 500)
            let mixed = try await server.send(
                .post, "/api/v1/rider/locations", token: rider, json: ["fixes": [ancient, vague]])
            #expect(mixed["accepted"] as? Int == 1)
            #expect(mixed["rejected"] as? Int == 1)
            #expect((mixed["rejections"] as? [[String: Any]])?.first?["index"] as? Int == 0)
            #expect(try await Self.stored(server, riderId) == (10, 43.7400))
            let shown = try await server.components.repository.lastShowableFix(riderId: riderId)
            #expect(shown?.lat == 43.7322)
        }
    }

    @Test("fixes over the rider's socket: acknowledged once stored, errors answered without closing")
    func riderSocket() async throws {
        try await TestServer.run(.sqlite, mode: .live) { server in
            let riderId = UUID()
            let rider = try await server.token(.rider, riderId)
            let socket = TrackingFollower(
                port: server.port, path: "/api/v1/rider/stream", token: rider, tokenInFirstMessage: true)
            try await socket.wait { $0.first?["type"] as? String == "ready" }
            let fix = RiderFixes.fix(server, lat: 43.7311, secondsAgo: 1)
            let batch = try JSONSerialization.data(withJSONObject: ["type": "locations", "ref": "a1", "fixes": [fix]])
            socket.send(String(decoding: batch, as: UTF8.self))
            try await socket.wait { $0.contains { $0["type"] as? String == "ack" } }
            let ack = try #require(socket.messages.first { $0["type"] as? String == "ack" })
            #expect(ack["ref"] as? String == "a1")
            #expect(ack["accepted"] as? Int == 1)
            #expect(try await Self.stored(server, riderId) == (1, 43.7311))

            var bad = fix
            bad["lat"] = 91
            let badBatch = try JSONSerialization.data(withJSONObject: [
                "type": "locations", "ref": "b2", "fixes": [bad],
            ])
            socket.send(String(decoding: badBatch, as: UTF8.self))
            socket.send("not json")
            try await socket.wait { $0.filter { $0["type"] as? String == "error" }.count == 2 }
            let errors = socket.messages.filter { $0["type"] as? String == "error" }
            #expect(errors.first?["ref"] as? String == "b2")
            #expect((errors.first?["problem"] as? [String: Any])?["code"] as? String == "VALIDATION_FAILED")
            #expect(try await Self.stored(server, riderId) == (1, 43.7311))

            // A full batch of 500 fixes fits in one message.
            let full = (0..<500).map {
                RiderFixes.fix(server, lat: 43.70 + Double($0) * 0.0001, secondsAgo: 3600 - Double($0))
            }
            let fullBatch = try JSONSerialization.data(withJSONObject: [
                "type": "locations", "ref": "c3", "fixes": full,
            ])
            socket.send(String(decoding: fullBatch, as: UTF8.self))
            try await socket.wait { $0.contains { $0["ref"] as? String == "c3" } }
            #expect(socket.messages.first { $0["ref"] as? String == "c3" }?["accepted"] as? Int == 500)

            // Still open: another batch goes through.
            let next = try JSONSerialization.data(
                withJSONObject: ["type": "locations", "fixes": [RiderFixes.fix(server, lat: 43.7350, secondsAgo: 0)]])
            socket.send(String(decoding: next, as: UTF8.self))
            try await socket.wait { $0.filter { $0["type"] as? String == "ack" }.count == 3 }

            let customer = try await server.token(.customer)
            let refused = TrackingFollower(port: server.port, path: "/api/v1/rider/stream", token: customer)
            try await refused.finished()
            #expect(refused.storage.applicationCloseCode.withLock { $0 } == 4403)
            let silent = TrackingFollower(port: server.port, path: "/api/v1/rider/stream", token: nil)
            try await silent.finished()
            #expect(silent.storage.applicationCloseCode.withLock { $0 } == 4401)
        }
    }

    @Test(
        "batches sent while the last waits for its commit reach the customer at once; acks follow in order",
        arguments: StoreKind.available)
    func pipelinedBatches(kind: StoreKind) async throws {
        try await TestServer.run(kind, mode: .live) { server in
            let (scenario, rider, taskId) = try await DeliveryScenario.inTransit(server)
            let task = try await server.database.first(
                "SELECT rider_id FROM tasks WHERE id = ?", [.uuid(try #require(UUID(uuidString: taskId)))])
            let riderId = try #require(try task?.uuid("rider_id"))
            let customer = TrackingFollower(port: server.port, orderId: scenario.orderId, token: scenario.customer)
            try await customer.wait { $0.first?["type"] as? String == "snapshot" }
            let socket = TrackingFollower(port: server.port, path: "/api/v1/rider/stream", token: rider)
            try await socket.wait { $0.first?["type"] as? String == "ready" }

            // The database is held: SQLite's one writer by an open transaction, PostgreSQL's writes by locks on the
            // riders and their fixes (a batch taken in after a newer one moves nobody and only inserts).
            let (held, isHeld) = AsyncStream<Void>.makeStream()
            let (released, release) = AsyncStream<Void>.makeStream()
            let holder = Task {
                try await server.database.transaction { transaction in
                    if server.kind == .postgres {
                        try await transaction.query("LOCK TABLE riders, rider_locations IN EXCLUSIVE MODE", [])
                    }
                    isHeld.yield()
                    for await _ in released { break }
                }
            }
            for await _ in held { break }
            do {
                let lats = [43.7380, 43.7400, 43.7420]
                for (index, lat) in lats.enumerated() {
                    // After the positions the status changes left, or the customer would not be shown them.
                    let fix = RiderFixes.fix(server, lat: lat, lon: 7.4262, secondsAgo: -Double(index + 1))
                    let batch = try JSONSerialization.data(withJSONObject: [
                        "type": "locations", "ref": "p\(index)", "fixes": [fix],
                    ])
                    socket.send(String(decoding: batch, as: UTF8.self))
                    // A message refused at once still waits for the acks of those sent before it.
                    if index == 1 { socket.send(#"{"type":"locations","ref":"empty","fixes":[]}"#) }
                }
                try await customer.wait {
                    $0.contains { $0["type"] as? String == "location" && $0["lat"] as? Double == 43.7420 }
                }
                #expect(
                    !socket.messages.contains { ["ack", "error"].contains($0["type"] as? String) },
                    "nothing is stored yet, so nothing is answered")
                // Shown in the order sent: each moved more than 25 m from the one before.
                let shown = customer.messages.filter { $0["type"] as? String == "location" }
                #expect(shown.compactMap { $0["lat"] as? Double } == lats)
            } catch {
                release.yield()
                throw error
            }
            release.yield()
            try await holder.value
            try await socket.wait { $0.filter { $0["type"] as? String == "ack" }.count == 3 }
            let acks = socket.messages.filter { $0["type"] as? String == "ack" }
            #expect(acks.compactMap { $0["ref"] as? String } == ["p0", "p1", "p2"])
            let answers = socket.messages.filter { ["ack", "error"].contains($0["type"] as? String) }
            #expect(answers.compactMap { $0["ref"] as? String } == ["p0", "p1", "empty", "p2"])
            #expect(acks.allSatisfy { $0["accepted"] as? Int == 1 })
            #expect(try await Self.stored(server, riderId) == (3, 43.7420))
        }
    }

    @Test("the rider's socket pushes the rider's own offers, nobody else's")
    func riderSocketPushesOffers() async throws {
        try await TestServer.run(.sqlite, mode: .live) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (riderId, rider) = try await scenario.onlineRider()
            let (_, otherRider) = try await scenario.onlineRider(name: "Someone Else")
            let socket = TrackingFollower(port: server.port, path: "/api/v1/rider/stream", token: rider)
            let other = TrackingFollower(port: server.port, path: "/api/v1/rider/stream", token: otherRider)
            try await socket.wait { $0.first?["type"] as? String == "ready" }
            try await other.wait { $0.first?["type"] as? String == "ready" }
            _ = try await scenario.offer(to: [riderId])
            try await socket.wait { $0.contains { $0["type"] as? String == "notification" } }
            let pushed = try #require(socket.messages.first { $0["type"] as? String == "notification" })
            #expect(pushed["title"] as? String == "New delivery offer")
            #expect(pushed["orderId"] as? String == scenario.orderId)
            try await Task.sleep(for: .milliseconds(600))
            #expect(!other.messages.contains { $0["type"] as? String == "notification" })
        }
    }
}
