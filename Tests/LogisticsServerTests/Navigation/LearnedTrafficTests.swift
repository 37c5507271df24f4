import Foundation
import HummingbirdTesting
import Logging
import LogisticsCore
import LogisticsServer
import RoadRouting
import Testing

@testable import TestSupport

@Suite("Learned time-of-day speeds, later departures and the speed feed, over HTTP", .timeLimit(.minutes(3)))
struct LearnedTrafficTests {
    static let from = "43.7396,7.4276"
    static let to = "43.7310,7.4170"
    static let route = "/api/v1/routes?from=\(from)&to=\(to)"

    static func configure(_ configuration: inout ServerConfiguration) {
        MapFixture.monaco(&configuration)
        configuration.rateLimits = .off
        configuration.routing.trafficCustomiseMilliseconds = 100
        configuration.routing.learnedSpeedsStoreMilliseconds = 100
    }

    /// Moves a test server's clock on to the next Monday, 08:05 UTC: a quarter hour with a name.
    static func toMondayMorning(_ clock: ManualWallClock) {
        let now = clock.now().timeIntervalSince1970
        let week = 7 * 86_400.0
        // 1970-01-05 was a Monday; 08:05 is 29,100 s into it.
        let mondayMorning = 4 * 86_400.0 + 29_100
        let into = (now - mondayMorning).truncatingRemainder(dividingBy: week)
        clock.advance(by: week - (into < 0 ? into + week : into))
    }

    static func departing(_ date: Date) -> String {
        route + "&departAt=" + RFC3339.string(from: date).replacingOccurrences(of: "+", with: "%2B")
    }

    @Test(
        "Speeds learned on one instance are stored, outlive it and reach another: a departure in that quarter hour is slower",
        arguments: StoreKind.available)
    func learnedAcrossInstances(kind: StoreKind) async throws {
        try await TestServer.run(kind, configure: Self.configure) { server in
            Self.toMondayMorning(server.clock)
            let dispatcher = try await server.token(.dispatcher)
            let free = try await server.send(.get, Self.route, token: dispatcher)
            #expect(free.status == 200, "\(free.text)")
            let freeDuration = try #require(free["durationS"] as? Double)
            let geometry = try #require(Polyline.decode(free["geometry"] as? String ?? ""))

            let rider = try await server.token(.rider, UUID(), name: "Slow rider")
            #expect(
                try await server.send(.put, "/api/v1/rider/availability", token: rider, json: ["status": "ONLINE"])
                    .status == 200)
            // Three fixes per stretch of the route at 2 m/s, ending a little before now: three samples per segment.
            var fixes: [[String: Any]] = []
            for (a, b) in zip(geometry, geometry.dropFirst()) where a.distanceM(to: b) > 5 {
                for fraction in [0.25, 0.5, 0.75] {
                    fixes.append([
                        "lat": a.lat + (b.lat - a.lat) * fraction, "lon": a.lon + (b.lon - a.lon) * fraction,
                        "accuracyM": 5, "speedMps": 2, "headingDeg": Bearing.degrees(from: a, to: b),
                    ])
                }
            }
            let start = server.clock.now().addingTimeInterval(-Double(fixes.count) * 0.2 - 1)
            for (index, _) in fixes.enumerated() {
                fixes[index]["recordedAt"] = RFC3339.string(from: start.addingTimeInterval(Double(index) * 0.2))
            }
            for batch in stride(from: 0, to: fixes.count, by: 400) {
                let posted = try await server.send(
                    .post, "/api/v1/rider/locations", token: rider,
                    json: ["fixes": Array(fixes[batch..<min(fixes.count, batch + 400)])])
                #expect(posted.status == 202, "\(posted.text)")
            }
            // Next Monday in the same quarter hour, and four hours earlier that day.
            let now = server.clock.now()
            let sameSlot = Self.departing(now.addingTimeInterval(7 * 86_400 - 60))
            let otherSlot = Self.departing(now.addingTimeInterval(7 * 86_400 - 4 * 3600))
            // Matching runs in the background, one profile's map after the other, and takes a while in a debug
            // build on a busy machine: rows in storage (perhaps another profile's) do not mean this map has learned.
            var lastDuration = 0.0
            let slowDuration = try await eventually { () -> Double? in
                let slow = try await server.send(.get, sameSlot, token: dispatcher)
                #expect(slow.status == 200, "\(slow.text)")
                lastDuration = slow["durationS"] as? Double ?? 0
                return lastDuration > freeDuration * 2 ? lastDuration : nil
            }
            #expect(slowDuration != nil, "learned: \(lastDuration) s, free flow \(freeDuration) s")
            let stored = try await eventually { try await server.count("learned_speeds") > 0 ? true : nil }
            #expect(stored == true, "the learned speeds never reached the database")
            let quiet = try await server.send(.get, otherSlot, token: dispatcher)
            #expect(quiet["durationS"] as? Double == freeDuration)

            // Another instance on the same database learns it from storage, not from riders.
            var logger = Logger(label: "second")
            logger.logLevel = .critical
            let second = try await buildApplication(
                server.components.configuration, clock: server.clock, logger: logger)
            try await second.application.test(.live) { client in
                let other = TestServer(
                    client: client, components: second.components, clock: server.clock, kind: kind,
                    routes: second.routes)
                let token = try await other.token(.dispatcher)
                let taught = try await eventually { () -> Double? in
                    let reply = try await other.send(.get, sameSlot, token: token)
                    let duration = reply["durationS"] as? Double ?? 0
                    return duration > freeDuration * 2 ? duration : nil
                }
                #expect(taught != nil, "the second instance never learned the slow quarter hour")
                #expect(try await other.send(.get, otherSlot, token: token)["durationS"] as? Double == freeDuration)
            }
        }
    }

    @Test("departAt: in the past, beyond a week or malformed is a 400 naming the field; later is timed from then")
    func departureValidation() async throws {
        try await TestServer.run(.sqlite, configure: Self.configure) { server in
            let dispatcher = try await server.token(.dispatcher)
            let now = server.clock.now()
            for (raw, message) in [
                (RFC3339.string(from: now.addingTimeInterval(-3600)), "must not be in the past"),
                (RFC3339.string(from: now.addingTimeInterval(8 * 86_400)), "within 7 days"),
                ("next tuesday", "RFC 3339"),
            ] {
                let reply = try await server.send(
                    .get, Self.route + "&departAt=" + raw.replacingOccurrences(of: " ", with: "%20"), token: dispatcher)
                #expect(reply.status == 400, "\(raw): \(reply.text)")
                #expect(reply.code == "VALIDATION_FAILED")
                #expect(reply.contentType == "application/problem+json")
                let errors = reply["errors"] as? [[String: Any]] ?? []
                #expect(errors.first?["field"] as? String == "departAt", "\(reply.text)")
                #expect((errors.first?["message"] as? String)?.contains(message) == true, "\(reply.text)")
            }
            let later = now.addingTimeInterval(3 * 3600)
            let reply = try await server.send(.get, Self.departing(later), token: dispatcher)
            #expect(reply.status == 200, "\(reply.text)")
            let duration = try #require(reply["durationS"] as? Double)
            #expect(reply["etaAt"] as? String == RFC3339.string(from: later.addingTimeInterval(duration)))
        }
    }

    @Test("A speed feed: bad entries are refused one by one with a reason and counted, the good one is applied")
    func speedFeed() async throws {
        try await TestServer.run(.sqlite, configure: Self.configure) { server in
            let admin = try await server.token(.admin)
            let dispatcher = try await server.token(.dispatcher)
            let before = try await server.send(.get, Self.route, token: dispatcher)
            let geometry = try #require(Polyline.decode(before["geometry"] as? String ?? ""))
            // The route's longest segment, in the direction driven, by its OSM nodes.
            let map = try #require((server.components.navigator.provider as? BuiltinDirections)?.maps[.motorcycle])
            let (a, b) = try #require(
                zip(geometry, geometry.dropFirst()).max { $0.0.distanceM(to: $0.1) < $1.0.distanceM(to: $1.1) })
            let snap = try #require(
                map.index.nearest(to: GeoPoint(lat: (a.lat + b.lat) / 2, lon: (a.lon + b.lon) / 2), maxDistanceM: 5))
            let forward = !map.graph.arcs(from: snap.nodeA, toward: snap.nodeB, along: snap.way).isEmpty
            let ends = forward ? (snap.nodeA, snap.nodeB) : (snap.nodeB, snap.nodeA)
            let (fromNode, toNode) = (map.graph.osmNodeId[Int(ends.0)], map.graph.osmNodeId[Int(ends.1)])
            let now = server.clock.now()
            let feed: [[String: Any]] = [
                ["fromNode": fromNode, "toNode": toNode, "speedKmh": 2, "observedAt": RFC3339.string(from: now)],
                ["fromNode": 1, "toNode": 2, "speedKmh": 30],
                ["fromNode": fromNode, "toNode": toNode, "speedKmh": -5],
                ["fromNode": fromNode, "toNode": toNode, "speedKmh": 300],
                ["fromNode": fromNode, "speedKmh": 30],
                [
                    "fromNode": fromNode, "toNode": toNode, "speedKmh": 30,
                    "observedAt": RFC3339.string(from: now.addingTimeInterval(-3600)),
                ],
                [
                    "fromNode": fromNode, "toNode": toNode, "speedKmh": 30,
                    "observedAt": RFC3339.string(from: now.addingTimeInterval(3600)),
                ],
            ]
            let reply = try await server.send(.post, "/api/v1/traffic/speeds", token: admin, json: ["speeds": feed])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply["applied"] as? Int == 1)
            let refused = (reply["refused"] as? [[String: Any]] ?? []).map {
                "\($0["index"] as? Int ?? -1) \($0["reason"] as? String ?? "")"
            }
            #expect(
                refused == [
                    "1 UNKNOWN_SEGMENT", "2 IMPOSSIBLE_SPEED", "3 IMPOSSIBLE_SPEED", "4 INCOMPLETE", "5 TOO_OLD",
                    "6 IN_THE_FUTURE",
                ], "\(reply.text)")
            // The applied speed is live traffic at once, and the route no longer drives through it at free flow.
            let arc = try #require(map.segments.arc(fromOSMNode: fromNode, toOSMNode: toNode))
            let live = map.traffic.observations(arcs: [arc], now: server.clock.now())[0]
            #expect(abs((live?.metresPerSecond ?? 0) - 2 / 3.6) < 1e-9)
            let after = try await server.send(.get, Self.route, token: dispatcher)
            let (slower, free) = (after["durationS"] as? Double ?? 0, before["durationS"] as? Double ?? .infinity)
            #expect(slower > free, "\(after.text)")
            let metrics = try await server.send(.get, "/metrics").text
            for line in [
                "traffic_feed_entries_total{outcome=\"applied\"} 1",
                "traffic_feed_entries_total{outcome=\"UNKNOWN_SEGMENT\"} 1",
                "traffic_feed_entries_total{outcome=\"IMPOSSIBLE_SPEED\"} 2",
                "traffic_feed_entries_total{outcome=\"TOO_OLD\"} 1",
            ] {
                #expect(metrics.contains(line), "\(line) missing")
            }
            // A malformed document is refused whole, and a dispatcher may not feed speeds.
            let malformed = try await server.send(
                .post, "/api/v1/traffic/speeds", token: admin, json: ["speeds": [["fromNode": "one"]]])
            #expect(malformed.status == 400)
            #expect(malformed.code == "VALIDATION_FAILED")
            let forbidden = try await server.send(
                .post, "/api/v1/traffic/speeds", token: dispatcher, json: ["speeds": feed])
            #expect(forbidden.status == 403)
        }
    }
}
