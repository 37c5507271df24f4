import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

/// What the dispatcher's fleet list and rider card read: each rider's orders on hand and deliveries today, and the
/// trail of the last half hour.
@Suite("The dispatcher's fleet list and rider trails", .timeLimit(.minutes(2)))
struct FleetListTests {
    @Test("the fleet names each rider's current orders and counts today's deliveries", arguments: StoreKind.available)
    func workloads(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            // Omar delivers one order, then Asha takes the next and is still on her way.
            let first = try await DeliveryScenario.ready(server, podType: "OTP")
            let omar = try await first.onlineRider(name: "Omar Haddad")
            let offered = try await first.offer(to: [omar.id])
            let accepted = try await server.send(
                .post, "/api/v1/rider/offers/\(offered[omar.id]!)/accept", token: omar.token)
            let omarTask = try #require(accepted["taskId"] as? String)
            try await first.arrive(omarTask, rider: omar.token)
            try await first.deliverWithCode(omarTask, rider: omar.token)

            let second = try await DeliveryScenario.ready(server)
            let asha = try await second.onlineRider(name: "Asha Rao")
            let mine = try await second.offer(to: [asha.id])
            #expect(
                try await server.send(.post, "/api/v1/rider/offers/\(mine[asha.id]!)/accept", token: asha.token)
                    .status == 200)
            let offline = UUID()
            _ = try await server.send(.get, "/api/v1/rider/me", token: try await server.token(.rider, offline))

            let reply = try await server.send(.get, "/api/v1/riders", token: first.dispatcher)
            #expect(reply.status == 200)
            let riders = Dictionary(
                uniqueKeysWithValues: try #require(reply["riders"] as? [[String: Any]]).map {
                    ($0["riderId"] as? String ?? "", $0)
                })
            let ashaRow = try #require(riders[asha.id.lowercased])
            let carried = try #require(ashaRow["currentOrders"] as? [[String: Any]])
            #expect(carried.count == 1)
            #expect(carried.first?["orderId"] as? String == second.orderId)
            #expect((carried.first?["externalRef"] as? String)?.hasPrefix("EXT-") == true)
            #expect(carried.first?["status"] as? String == "RIDER_ASSIGNED")
            #expect(ashaRow["deliveriesToday"] as? Int == 0)
            let omarRow = try #require(riders[omar.id.lowercased])
            #expect((omarRow["currentOrders"] as? [Any])?.isEmpty == true)
            #expect(omarRow["deliveriesToday"] as? Int == 1)
            // A rider who never went online is listed too, with nothing on hand.
            let quiet = try #require(riders[offline.lowercased])
            #expect(quiet["availability"] as? String == "OFFLINE")
            #expect((quiet["currentOrders"] as? [Any])?.isEmpty == true && quiet["deliveriesToday"] as? Int == 0)

            // The dispatcher's own midnight: a day that began after the delivery counts none.
            let later = RFC3339.string(from: server.clock.now().addingTimeInterval(1))
            server.clock.advance(by: 2)
            let fromLater = try await server.send(.get, "/api/v1/riders?dayStart=\(later)", token: first.dispatcher)
            let counts = (fromLater["riders"] as? [[String: Any]] ?? []).filter {
                $0["riderId"] as? String == omar.id.lowercased
            }.map { $0["deliveriesToday"] as? Int }
            #expect(counts == [0])
            // A midnight out of reach is brought within the last day rather than refused: a computer's clock ahead
            // of the server's counts from now, a page left open overnight counts the last 24 hours.
            for (far, delivered) in [(-90_000.0, 1), (600.0, 0)] {
                let day = RFC3339.string(from: server.clock.now().addingTimeInterval(far))
                let fleet = try await server.send(.get, "/api/v1/riders?dayStart=\(day)", token: first.dispatcher)
                let omarCounts = (fleet["riders"] as? [[String: Any]] ?? []).filter {
                    $0["riderId"] as? String == omar.id.lowercased
                }.map { $0["deliveriesToday"] as? Int }
                #expect(omarCounts == [delivered], "\(far)")
            }
            let refused = try await server.send(.get, "/api/v1/riders?dayStart=yesterday", token: first.dispatcher)
            #expect(refused.status == 400 && ValidationTests.fields(refused) == ["dayStart"])
        }
    }

    @Test(
        "a rider's trail: the fixes of the last half hour, oldest first; minutes, 404 and roles",
        arguments: StoreKind.available)
    func trail(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            let riderId = UUID()
            let rider = try await server.token(.rider, riderId, name: "Lena Vogel")
            #expect(try await server.send(.get, "/api/v1/rider/me", token: rider).status == 200)
            let now = server.clock.now()
            let fixes = [(-2400.0, 43.7300), (-1200.0, 43.7320), (-300.0, 43.7340), (-10.0, 43.7360)].map {
                LocationFix(lat: $0.1, lon: 7.4200, accuracyM: 5, speedMps: 6, headingDeg: 90, recordedAt: now + $0.0)
            }
            try await server.components.repository.recordFixes(fixes, riderId: riderId, now: now)

            let path = "/api/v1/riders/\(riderId.lowercased)/trail"
            let halfHour = try await server.send(.get, path, token: dispatcher)
            #expect(halfHour.status == 200)
            #expect(halfHour["riderId"] as? String == riderId.lowercased)
            #expect(halfHour["since"] is String)
            let points = try #require(halfHour["fixes"] as? [[String: Any]])
            #expect(points.compactMap { $0["lat"] as? Double } == [43.7320, 43.7340, 43.7360])
            #expect(points.allSatisfy { $0["recordedAt"] is String && $0["headingDeg"] as? Double == 90 })
            let hour = try await server.send(.get, "\(path)?minutes=60", token: dispatcher)
            #expect((hour["fixes"] as? [Any])?.count == 4)
            let fiveMinutes = try await server.send(.get, "\(path)?minutes=5", token: dispatcher)
            #expect(
                (fiveMinutes["fixes"] as? [[String: Any]])?.compactMap { $0["lat"] as? Double } == [43.7340, 43.7360])

            for query in ["minutes=0", "minutes=241", "minutes=half", "from=x"] {
                let refused = try await server.send(.get, "\(path)?\(query)", token: dispatcher)
                #expect(refused.status == 400, "\(query)")
            }
            #expect(
                ValidationTests.fields(try await server.send(.get, "\(path)?minutes=0", token: dispatcher)) == [
                    "minutes"
                ])
            let unknown = try await server.send(.get, "/api/v1/riders/\(UUID().lowercased)/trail", token: dispatcher)
            #expect(unknown.status == 404 && unknown.code == "NOT_FOUND")
            #expect(try await server.send(.get, path, token: rider).status == 403)
            #expect(try await server.send(.get, path).status == 401)
            // A rider with no fix yet has an empty trail, not a 404.
            let idle = UUID()
            _ = try await server.send(.get, "/api/v1/rider/me", token: try await server.token(.rider, idle))
            let empty = try await server.send(.get, "/api/v1/riders/\(idle.lowercased)/trail", token: dispatcher)
            #expect(empty.status == 200 && (empty["fixes"] as? [Any])?.isEmpty == true)
        }
    }
}
