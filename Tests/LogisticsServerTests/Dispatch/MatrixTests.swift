import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

@Suite("Travel matrix API", .timeLimit(.minutes(3)))
struct MatrixTests {
    static let casino: [String: Double] = ["lat": 43.7396, "lon": 7.4276]
    static let port: [String: Double] = ["lat": 43.7347, "lon": 7.4206]
    static let fontvieille: [String: Double] = ["lat": 43.7289, "lon": 7.4170]
    static let sea: [String: Double] = ["lat": 43.70, "lon": 7.46]

    @Test(
        "durations and distances for every pair, agreeing with the route between them", arguments: StoreKind.available)
    func matrix(kind: StoreKind) async throws {
        try await TestServer.run(kind, configure: MapFixture.monaco) { server in
            let dispatcher = try await server.token(.dispatcher)
            let reply = try await server.send(
                .post, "/api/v1/matrix", token: dispatcher,
                json: [
                    "sources": [Self.casino, Self.port], "destinations": [Self.port, Self.fontvieille, Self.casino],
                ])
            #expect(reply.status == 200, "\(reply.text)")
            let durations = try #require(reply["durations"] as? [[Double]])
            let distances = try #require(reply["distances"] as? [[Double]])
            #expect(durations.count == 2 && durations.allSatisfy { $0.count == 3 })
            #expect(distances.count == 2 && distances.allSatisfy { $0.count == 3 })
            #expect(durations[0][2] < 5 && durations[1][0] < 5, "a place to itself")
            let route = try await server.send(
                .get, "/api/v1/routes?from=43.7396,7.4276&to=43.7289,7.4170", token: dispatcher)
            let routeSeconds = try #require(route["durationS"] as? Double)
            let routeMetres = try #require(route["distanceM"] as? Double)
            #expect(abs(durations[0][1] - routeSeconds) <= 1, "\(durations[0][1]) vs \(routeSeconds)")
            #expect(abs(distances[0][1] - routeMetres) <= 2, "\(distances[0][1]) vs \(routeMetres)")
            // Without destinations: sources to sources, square.
            let square = try await server.send(
                .post, "/api/v1/matrix", token: dispatcher,
                json: ["sources": [Self.casino, Self.port, Self.fontvieille]])
            #expect((square["durations"] as? [[Double]])?.map(\.count) == [3, 3, 3])
            let metrics = try await server.send(.get, "/metrics")
            #expect(metrics.text.contains("matrix_duration_seconds"))
        }
    }

    @Test("bad matrices: 400 naming the field, 422 naming positions off the roads, 403 for riders, 503 without a map")
    func badMatrices() async throws {
        try await TestServer.run(
            .sqlite,
            configure: {
                MapFixture.monaco(&$0)
                $0.dispatch.matrixMaxLocations = 4
            }
        ) { server in
            let dispatcher = try await server.token(.dispatcher)
            let five = Array(repeating: Self.casino, count: 5)
            for (body, field) in [
                (["sources": [] as [Any]], "sources"),
                (["sources": five], "sources"),
                (["sources": [Self.casino], "destinations": five], "destinations"),
                (["sources": [["lat": 91, "lon": 7.4]]], "sources[0].lat"),
                (["sources": [Self.casino], "destinations": [["lat": 43.7, "lon": "east"]]], "destinations[0].lon"),
                (["sources": [Self.casino], "profile": "bicycle"], "profile"),
                (["destinations": [Self.casino]], "sources"),
            ] as [([String: Any], String)] {
                let reply = try await server.send(.post, "/api/v1/matrix", token: dispatcher, json: body)
                #expect(reply.status == 400, "\(body)")
                #expect(reply.code == "VALIDATION_FAILED")
                let fields = (reply["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String } ?? []
                #expect(fields.contains(field), "\(body): \(fields)")
            }
            let malformed = try await server.send(
                .post, "/api/v1/matrix", token: dispatcher, raw: Data("{\"sources\": [".utf8),
                contentType: "application/json")
            #expect(malformed.status == 400)
            let offRoad = try await server.send(
                .post, "/api/v1/matrix", token: dispatcher,
                json: ["sources": [Self.casino, Self.sea], "destinations": [Self.sea, Self.port]])
            #expect(offRoad.status == 422)
            #expect(offRoad.code == "LOCATION_NOT_ROUTABLE")
            #expect(offRoad["fields"] as? [String] == ["sources[1]", "destinations[0]"])
            let rider = try await server.send(
                .post, "/api/v1/matrix", token: try await server.token(.rider), json: ["sources": [Self.casino]])
            #expect(rider.status == 403)
            let anonymous = try await server.send(.post, "/api/v1/matrix", json: ["sources": [Self.casino]])
            #expect(anonymous.status == 401)
        }
        try await TestServer.run(.sqlite) { server in
            let reply = try await server.send(
                .post, "/api/v1/matrix", token: try await server.token(.admin), json: ["sources": [Self.casino]])
            #expect(reply.status == 503)
            #expect(reply.code == "NAVIGATION_UNAVAILABLE")
        }
    }
}
