import Foundation
import LogisticsCore
import RoadRouting
import Testing

@testable import TestSupport

@Suite("Navigation API", .timeLimit(.minutes(3)))
struct NavigationTests {
    static let casino = "43.7396,7.4276"
    static let fontvieille = "43.7289,7.4170"

    @Test("dispatcher route: real Monaco route with steps, geometry, congestion; shortest is never longer")
    func dispatcherRoute() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let dispatcher = try await server.token(.dispatcher)
            let fastest = try await server.send(
                .get, "/api/v1/routes?from=\(Self.casino)&to=\(Self.fontvieille)", token: dispatcher)
            #expect(fastest.status == 200, "\(fastest.text)")
            #expect(fastest["provider"] as? String == "builtin")
            let distance = try #require(fastest["distanceM"] as? Double)
            #expect(distance > 2_000 && distance < 3_500)
            let geometry = try #require(fastest["geometry"] as? String)
            let points = try #require(Polyline.decode(geometry))
            #expect((fastest["congestion"] as? [String])?.count == points.count - 1)
            let steps = try #require(((fastest["legs"] as? [[String: Any]])?.first)?["steps"] as? [[String: Any]])
            #expect((steps.first?["maneuver"] as? [String: Any])?["type"] as? String == "depart")
            #expect((steps.last?["maneuver"] as? [String: Any])?["type"] as? String == "arrive")
            #expect(steps.contains { ($0["voiceInstructions"] as? [Any])?.isEmpty == false })
            #expect(RFC3339.date(from: fastest["etaAt"] as? String ?? "") != nil)

            let shortest = try await server.send(
                .get, "/api/v1/routes?from=\(Self.casino)&to=\(Self.fontvieille)&optimize=distance", token: dispatcher)
            #expect(try #require(shortest["distanceM"] as? Double) <= distance)
            let car = try await server.send(
                .get, "/api/v1/routes?from=\(Self.casino)&to=\(Self.fontvieille)&profile=car", token: dispatcher)
            #expect(car.status == 200)

            let metrics = try await server.send(.get, "/metrics")
            #expect(metrics.text.contains("routing_duration_seconds"))
            let ready = try await server.send(.get, "/health/ready", token: try await server.token(.dispatcher))
            #expect((ready["navigation"] as? String)?.contains("motorcycle") == true)
        }
    }

    @Test(
        "bad route queries: 400 with field errors, 422 off the road network, 403 for riders",
        arguments: StoreKind.available)
    func badQueries(kind: StoreKind) async throws {
        try await TestServer.run(kind, configure: MapFixture.monaco) { server in
            let dispatcher = try await server.token(.dispatcher)
            for (query, field) in [
                ("to=\(Self.casino)", "from"), ("from=91,7.42&to=\(Self.casino)", "from.lat"),
                ("from=abc&to=\(Self.casino)", "from"), ("from=\(Self.casino)&to=43.7,nan", "to"),
                ("from=\(Self.casino)&to=\(Self.fontvieille)&profile=bicycle", "profile"),
                ("from=\(Self.casino)&to=\(Self.fontvieille)&optimize=scenic", "optimize"),
            ] {
                let reply = try await server.send(.get, "/api/v1/routes?\(query)", token: dispatcher)
                #expect(reply.status == 400, "\(query)")
                #expect(reply.code == "VALIDATION_FAILED")
                #expect(reply.contentType == "application/problem+json")
                let fields = (reply["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String } ?? []
                #expect(fields.contains { $0.hasPrefix(field) }, "\(query): \(fields)")
            }
            let sea = try await server.send(.get, "/api/v1/routes?from=\(Self.casino)&to=43.70,7.46", token: dispatcher)
            #expect(sea.status == 422)
            #expect(sea.code == "LOCATION_NOT_ROUTABLE")
            #expect(sea["field"] as? String == "to")
            #expect(sea["maxSnapDistanceM"] as? Double == 300)
            let rider = try await server.token(.rider)
            let forbidden = try await server.send(
                .get, "/api/v1/routes?from=\(Self.casino)&to=\(Self.fontvieille)", token: rider)
            #expect(forbidden.status == 403)
            let anonymous = try await server.send(.get, "/api/v1/routes?from=\(Self.casino)&to=\(Self.fontvieille)")
            #expect(anonymous.status == 401)
        }
    }

    @Test("task route goes to the store before pickup and to the customer after; the active task carries it")
    func taskRoute() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (riderId, rider, taskId) = try await scenario.assigned()
            _ = riderId
            let toStore = try await server.send(
                .get, "/api/v1/rider/tasks/\(taskId)/route?from=43.7503,7.4395&heading=200", token: rider)
            #expect(toStore.status == 200, "\(toStore.text)")
            let storeEnd = try #require(Polyline.decode(toStore["geometry"] as? String ?? "")?.last)
            #expect(storeEnd.distanceM(to: GeoPoint(lat: 43.7396, lon: 7.4276)) < 60)

            // Without `from` and without any fix there is nothing to start from.
            let noFix = try await server.send(.get, "/api/v1/rider/tasks/\(taskId)/route", token: rider)
            #expect(noFix.code == "VALIDATION_FAILED")
            var active = try await server.send(.get, "/api/v1/rider/tasks/active", token: rider)
            #expect(active["route"] == nil)
            let fix: [String: Any] = [
                "lat": 43.7503, "lon": 7.4395, "accuracyM": 5, "speedMps": 6, "headingDeg": 200,
                "recordedAt": RFC3339.string(from: server.clock.now()),
            ]
            let posted = try await server.send(.post, "/api/v1/rider/locations", token: rider, json: ["fixes": [fix]])
            #expect(posted.status == 202)
            active = try await server.send(.get, "/api/v1/rider/tasks/active", token: rider)
            let route = try #require(active["route"] as? [String: Any])
            #expect((route["distanceM"] as? Double ?? 0) > 500)
            let fromFix = try await server.send(.get, "/api/v1/rider/tasks/\(taskId)/route", token: rider)
            #expect(fromFix.status == 200)

            for status in ["ARRIVED_AT_STORE", "PICKED_UP"] {
                #expect(
                    try await scenario.status(taskId, status, rider: rider, lat: 43.7396, lon: 7.4276).status == 200)
            }
            let toCustomer = try await server.send(
                .get, "/api/v1/rider/tasks/\(taskId)/route?from=\(Self.casino)", token: rider)
            let customerEnd = try #require(Polyline.decode(toCustomer["geometry"] as? String ?? "")?.last)
            #expect(customerEnd.distanceM(to: GeoPoint(lat: 43.7347, lon: 7.4240)) < 60)

            let other = try await scenario.onlineRider()
            let stranger = try await server.send(
                .get, "/api/v1/rider/tasks/\(taskId)/route?from=\(Self.casino)", token: other.token)
            #expect(stranger.status == 403)
            #expect(stranger.code == "FORBIDDEN")
            let unknown = try await server.send(
                .get, "/api/v1/rider/tasks/\(UUID().lowercased)/route?from=\(Self.casino)", token: rider)
            #expect(unknown.status == 404)
            let badHeading = try await server.send(
                .get, "/api/v1/rider/tasks/\(taskId)/route?from=\(Self.casino)&heading=400", token: rider)
            #expect(badHeading.code == "VALIDATION_FAILED")
        }
    }

    @Test("without a map, navigation answers 503 NAVIGATION_UNAVAILABLE with the friendly title, logged and counted")
    func noMap() async throws {
        try await TestServer.run(.sqlite) { server in
            let dispatcher = try await server.token(.dispatcher)
            let reply = try await server.send(
                .get, "/api/v1/routes?from=\(Self.casino)&to=\(Self.fontvieille)", token: dispatcher)
            #expect(reply.status == 503)
            #expect(reply.code == "NAVIGATION_UNAVAILABLE")
            #expect(
                reply["title"] as? String == "Navigation service is temporarily unavailable. Please try again shortly.")
            // The ETA ledger does not ask a server without a map: a pickup and fixes on the way add no failure.
            let (_, rider, _) = try await DeliveryScenario.inTransit(server)
            for _ in 0..<2 {
                server.clock.advance(by: 11)
                let fix: [String: Any] = [
                    "lat": 43.7390, "lon": 7.4270, "accuracyM": 5,
                    "recordedAt": RFC3339.string(from: server.clock.now()),
                ]
                let posted = try await server.send(
                    .post, "/api/v1/rider/locations", token: rider, json: ["fixes": [fix]])
                #expect(posted.status == 202)
            }
            let metrics = try await server.send(.get, "/metrics")
            #expect(metrics.text.contains("routing_provider_failures_total{provider=\"builtin\"} 1"))
        }
    }
}

@Suite("Dispatch by road ETA", .timeLimit(.minutes(3)))
struct RoadETADispatchTests {
    @Test("with a map, nearest offers go to the rider quickest by road, not closest in a straight line")
    func nearestByRoad() async throws {
        let map = try RoadMapLoader.load(
            path: MapFixture.pbfPath, profile: .motorcycle, cacheDirectory: await MapFixture.cacheDirectory)
        let planner = RoutePlanner(map: map)
        let store = GeoPoint(lat: 43.7396, lon: 7.4276)
        // Two positions whose straight-line order is the opposite of their road order.
        var candidates: [(point: GeoPoint, straight: Double, road: Double)] = []
        for latStep in -8...8 {
            for lonStep in -8...8 {
                let point = GeoPoint(
                    lat: store.lat + Double(latStep) * 0.0015, lon: store.lon + Double(lonStep) * 0.0015)
                guard let route = try? planner.route(RouteRequest(from: point, to: store), now: Date()),
                    route.waypoints[0].snapDistanceM < 30
                else { continue }
                candidates.append((point, point.distanceM(to: store), route.durationS))
            }
        }
        var pair: (near: GeoPoint, quick: GeoPoint)?
        search: for a in candidates {
            for b in candidates where a.straight < b.straight * 0.8 && a.road > b.road * 1.5 {
                pair = (a.point, b.point)
                break search
            }
        }
        let (nearInLine, quickByRoad) = try #require(pair)
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let slow = try await scenario.onlineRider()
            let quick = try await scenario.onlineRider()
            for (rider, point) in [(slow.id, nearInLine), (quick.id, quickByRoad)] {
                try await server.database.query(
                    "UPDATE riders SET last_lat = ?, last_lon = ?, last_fix_at = ? WHERE id = ?",
                    [.double(point.lat), .double(point.lon), .date(server.clock.now()), .uuid(rider)])
            }
            let made = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/offers", token: scenario.dispatcher,
                json: ["strategy": "nearest", "count": 1])
            #expect(made.status == 201)
            let chosen = (made["offers"] as? [[String: Any]])?.first?["riderId"] as? String
            #expect(chosen == quick.id.lowercased)
        }
    }
}
