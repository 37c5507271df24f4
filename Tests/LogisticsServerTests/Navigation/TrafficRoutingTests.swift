import Foundation
import LogisticsCore
import RoadRouting
import Testing

@testable import TestSupport

@Suite("Live traffic in route choice, over HTTP", .timeLimit(.minutes(2)))
struct TrafficRoutingTests {
    static let route = "/api/v1/routes?from=43.7396,7.4276&to=43.7310,7.4170"

    @Test("a rider crawling along the fastest route: moments later the route goes round, and /metrics says so")
    func slowFixesChangeTheRoute() async throws {
        try await TestServer.run(
            .sqlite,
            configure: {
                MapFixture.monaco(&$0)
                $0.routing.trafficCustomiseMilliseconds = 100
            }
        ) { server in
            let dispatcher = try await server.token(.dispatcher)
            let before = try await server.send(.get, Self.route, token: dispatcher)
            #expect(before.status == 200, "\(before.text)")
            let geometry = try #require(before["geometry"] as? String)
            let points = try #require(Polyline.decode(geometry))

            let rider = try await server.token(.rider, UUID(), name: "Crawler")
            let online = try await server.send(
                .put, "/api/v1/rider/availability", token: rider, json: ["status": "ONLINE"])
            #expect(online.status == 200)
            let middle = Array(points[(points.count / 4)..<(3 * points.count / 4)])
            let steps = zip(middle, middle.dropFirst()).filter { $0.0.distanceM(to: $0.1) > 5 }
            let fixes: [[String: Any]] = steps.enumerated().map { index, step in
                [
                    "lat": (step.0.lat + step.1.lat) / 2, "lon": (step.0.lon + step.1.lon) / 2, "accuracyM": 5,
                    "speedMps": 1, "headingDeg": Bearing.degrees(from: step.0, to: step.1),
                    "recordedAt": RFC3339.string(
                        from: server.clock.now().addingTimeInterval(Double(index - steps.count))),
                ]
            }
            let posted = try await server.send(.post, "/api/v1/rider/locations", token: rider, json: ["fixes": fixes])
            #expect(posted.status == 202, "\(posted.text)")

            let after = try await eventually(within: .seconds(10)) { () -> Reply? in
                let reply = try await server.send(.get, Self.route, token: dispatcher)
                return reply["geometry"] as? String != geometry ? reply : nil
            }
            let detour = try #require(after, "the route never changed")
            #expect(detour.status == 200)
            #expect(try #require(detour["distanceM"] as? Double) > (before["distanceM"] as? Double ?? .infinity))
            let metrics = try await server.send(.get, "/metrics")
            #expect(metrics.text.contains("traffic_customisation_seconds_count{profile=\"motorcycle\"}"))
            #expect(!metrics.text.contains("traffic_live_arcs{profile=\"motorcycle\"} 0"))
        }
    }
}
