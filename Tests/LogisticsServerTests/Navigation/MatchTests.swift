import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

@Suite("Map matching API", .timeLimit(.minutes(3)))
struct MatchTests {
    /// A rider's trace along the dispatcher's route from the Casino to Fontvieille: a fix every 3 s at 8 m/s, each
    /// pushed 6 m to alternate sides of the road as a phone's GPS would.
    static func trace(_ server: TestServer) async throws -> (fixes: [[String: Any]], routeM: Double) {
        let route = try await server.send(
            .get, "/api/v1/routes?from=\(NavigationTests.casino)&to=\(NavigationTests.fontvieille)",
            token: try await server.token(.dispatcher))
        let geometry = try #require(route["geometry"] as? String)
        let points = try #require(Polyline.decode(geometry))
        var fixes: [[String: Any]] = []
        var carried = 0.0
        var side = 1.0
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for (a, b) in zip(points, points.dropFirst()) {
            let length = a.distanceM(to: b)
            var at = carried
            while at < length {
                let fraction = at / length
                let lat = a.lat + (b.lat - a.lat) * fraction
                let lon = a.lon + (b.lon - a.lon) * fraction
                // Perpendicular to the segment, 6 m.
                let north = (b.lat - a.lat) * 111_195
                let east = (b.lon - a.lon) * 111_195 * cos(lat * .pi / 180)
                let norm = max(1e-9, (north * north + east * east).squareRoot())
                let offsetNorth = -east / norm * 6 * side
                let offsetEast = north / norm * 6 * side
                fixes.append([
                    "lat": lat + offsetNorth / 111_195, "lon": lon + offsetEast / (111_195 * cos(lat * .pi / 180)),
                    "accuracyM": 8,
                    "recordedAt": RFC3339.string(from: start.addingTimeInterval(Double(fixes.count) * 3)),
                ])
                side = -side
                at += 24
            }
            carried = at - length
        }
        return (fixes, try #require(route["distanceM"] as? Double))
    }

    @Test("a noisy trace along a route matches as one stretch of that route's length, every fix on the road")
    func matchesRoute() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let (fixes, routeM) = try await Self.trace(server)
            #expect(fixes.count > 50)
            let reply = try await server.send(
                .post, "/api/v1/match", token: try await server.token(.dispatcher), json: ["trace": fixes])
            #expect(reply.status == 200, "\(reply.text)")
            let points = try #require(reply["points"] as? [Any])
            #expect(points.count == fixes.count)
            let matched = points.compactMap { $0 as? [String: Any] }
            #expect(matched.count == fixes.count)
            #expect(matched.allSatisfy { ($0["distanceM"] as? Double ?? 99) < 15 })
            let stretches = try #require(reply["stretches"] as? [[String: Any]])
            #expect(stretches.count == 1)
            #expect(stretches.first?["fixCount"] as? Int == fixes.count)
            // The first fix is up to 24 m into the route and the last up to 24 m short of its end.
            let length = try #require(stretches.first?["distanceM"] as? Double)
            #expect(abs(length - routeM) < routeM * 0.05 + 50, "matched \(length) m, route \(routeM) m")
            #expect((reply["unmatched"] as? [Any])?.isEmpty == true)
            let geometry = try #require(reply["geometry"] as? String)
            #expect(Polyline.decode(geometry)?.count ?? 0 >= 2)
        }
    }

    @Test("fixes out of order, repeated, or at sea: 200, the sea fixes null and reported, the rest matched")
    func brokenTrace() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            var (fixes, _) = try await Self.trace(server)
            fixes = Array(fixes.prefix(30))
            fixes[10]["lat"] = 43.70
            fixes[10]["lon"] = 7.46
            fixes[11]["lat"] = 43.70
            fixes[11]["lon"] = 7.46
            fixes.append(fixes[5])
            let sent = Array(fixes.reversed())
            let reply = try await server.send(
                .post, "/api/v1/match", token: try await server.token(.dispatcher), json: ["trace": sent])
            #expect(reply.status == 200, "\(reply.text)")
            let points = try #require(reply["points"] as? [Any])
            let nulls = points.indices.filter { points[$0] is NSNull }
            // Reversed: fix 10 is sent at 20 and fix 11 at 19 (the appended repeat of fix 5 went first).
            #expect(Set(nulls) == [19, 20], "\(nulls)")
            let unmatched = try #require(reply["unmatched"] as? [[String: Any]])
            #expect(unmatched.count == 1)
            #expect(unmatched.first?["fixCount"] as? Int == 2)
            #expect(Set([unmatched.first?["fromIndex"] as? Int, unmatched.first?["toIndex"] as? Int]) == [19, 20])
        }
    }

    @Test("bad traces are 400 naming the field; riders are 403")
    func badInput() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let dispatcher = try await server.token(.dispatcher)
            let fix: [String: Any] = ["lat": 43.739, "lon": 7.427, "recordedAt": "2026-11-25T10:00:00Z"]
            var far = fix
            far["lat"] = 91
            var noTime = fix
            noTime.removeValue(forKey: "recordedAt")
            var badAccuracy = fix
            badAccuracy["accuracyM"] = -3
            for (body, field) in [
                (["trace": []] as [String: Any], "trace"), (["trace": [far]], "trace[0].lat"),
                (["trace": [noTime]], "trace[0].recordedAt"), (["trace": [fix, badAccuracy]], "trace[1].accuracyM"),
                (["trace": Array(repeating: fix, count: 5_001)], "trace"),
                (["trace": [fix], "profile": "bicycle"], "profile"),
            ] {
                let reply = try await server.send(.post, "/api/v1/match", token: dispatcher, json: body)
                #expect(reply.status == 400, "\(field)")
                #expect(reply.code == "VALIDATION_FAILED")
                let fields = (reply["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String } ?? []
                #expect(fields.contains(field), "\(field): \(fields) \(reply.text)")
            }
            let rider = try await server.send(
                .post, "/api/v1/match", token: try await server.token(.rider), json: ["trace": [fix]])
            #expect(rider.status == 403)
        }
    }
}

@Suite("An order's roads driven", .timeLimit(.minutes(3)))
struct OrderPathTests {
    @Test("GET /orders/{id}/path: the fixes stored in transit, matched to the road; empty before any; 404 unknown")
    func orderPath() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let (scenario, rider, _) = try await DeliveryScenario.inTransit(server)
            let dispatcher = scenario.dispatcher
            let empty = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)/path", token: dispatcher)
            #expect(empty.status == 200, "\(empty.text)")
            #expect(empty["fixCount"] as? Int == 0)
            #expect(empty["geometry"] as? String == "")

            // The test trace, re-stamped one fix a second up to the server's now.
            let (trace, routeM) = try await MatchTests.trace(server)
            let now = server.clock.now()
            let fixes = trace.enumerated().map { index, fix in
                var fix = fix
                fix["recordedAt"] = RFC3339.string(from: now.addingTimeInterval(Double(index - trace.count)))
                fix["speedMps"] = 8
                return fix
            }
            let posted = try await server.send(.post, "/api/v1/rider/locations", token: rider, json: ["fixes": fixes])
            #expect(posted.status == 202, "\(posted.text)")

            let path = try await server.send(.get, "/api/v1/orders/\(scenario.orderId)/path", token: dispatcher)
            #expect(path.status == 200, "\(path.text)")
            #expect(path["orderId"] as? String == scenario.orderId)
            let stored = try #require(path["fixCount"] as? Int)
            #expect(stored > fixes.count / 2 && stored <= fixes.count)
            let points = try #require(Polyline.decode(path["geometry"] as? String ?? ""))
            let length = zip(points, points.dropFirst()).reduce(0) { $0 + $1.0.distanceM(to: $1.1) }
            #expect(abs(length - routeM) < routeM * 0.15, "matched \(length) m of a \(routeM) m route")
            #expect((path["points"] as? [Any])?.count == stored)

            let unknown = try await server.send(.get, "/api/v1/orders/\(UUID().lowercased)/path", token: dispatcher)
            #expect(unknown.status == 404)
            #expect(unknown.code == "NOT_FOUND")
        }
    }
}
