import Foundation
import LogisticsCore
import RoadRouting
import Testing

@testable import LogisticsServer
@testable import TestSupport

@Suite("Routes written by hand are the bytes JSONEncoder writes", .timeLimit(.minutes(3)))
struct RouteJSONTests {
    @Test("forty real Monaco routes over HTTP: the body re-encoded by APIJSON.encoder is byte for byte the same")
    func realRoutes() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let dispatcher = try await server.token(.dispatcher)
            var random = SeededGenerator(state: 11)
            var checked = 0
            for _ in 0..<40 {
                let from =
                    "\(43.727 + Double.random(in: 0...0.017, using: &random)),"
                    + "\(7.410 + Double.random(in: 0...0.025, using: &random))"
                let to =
                    "\(43.727 + Double.random(in: 0...0.017, using: &random)),"
                    + "\(7.410 + Double.random(in: 0...0.025, using: &random))"
                let reply = try await server.send(.get, "/api/v1/routes?from=\(from)&to=\(to)", token: dispatcher)
                guard reply.status == 200 else { continue }
                #expect(reply.contentType == "application/json")
                let route = try APIJSON.decoder.decode(Route.self, from: reply.body)
                let encoded = try APIJSON.encoder.encode(route)
                #expect(
                    encoded == reply.body,
                    "\(from) → \(to)\n\(reply.text.prefix(400))\n\(String(decoding: encoded.prefix(400), as: UTF8.self))"
                )
                checked += 1
            }
            #expect(checked >= 30, "most random pairs in Monaco have a route")
        }
    }

    @Test("quotes, backslashes, control characters, accents, nil optionals and awkward numbers")
    func awkwardValues() throws {
        let point = GeoPoint(lat: -0.0, lon: 1e-05, accuracyM: 12.0)
        let step = RouteStep(
            maneuver: Maneuver(type: "turn", modifier: nil, location: point, bearingAfter: 359, exit: 3),
            name: "Rue \"Grimaldi\" \\ Boulevard\nd'Italie\t\u{1}\u{1F}é ß 🛵", distanceM: 0.1, durationS: 1e20,
            instruction: "In 200 m, turn left",
            voiceInstructions: [
                VoiceInstruction(distanceAlongStepM: 123.456789012345, announcement: "Tournez à gauche / left")
            ], geometryStart: 0, geometryEnd: Int.max)
        for route in [
            Route(
                distanceM: 164.0, durationS: 0, etaAt: "2026-11-27T08:05:00.000Z", geometry: "_p~iF~ps|U_ulLnnqC",
                legs: [RouteLeg(distanceM: 1, durationS: 2.5, steps: [step, step])], congestion: ["low", "heavy"],
                provider: "builtin", dataAgeS: 42,
                waypoints: [Waypoint(location: GeoPoint(lat: 43.7, lon: 7.4), name: "", snapDistanceM: 3.25)]),
            Route(
                distanceM: 0, durationS: 0, etaAt: "", geometry: "", legs: [], congestion: [], provider: "x",
                dataAgeS: nil, waypoints: []),
        ] {
            let encoded = try APIJSON.encoder.encode(route)
            let written = Data(route.apiJSON)
            #expect(
                written == encoded,
                "\(String(decoding: written, as: UTF8.self))\n\(String(decoding: encoded, as: UTF8.self))")
            #expect(try APIJSON.decoder.decode(Route.self, from: written) == route)
        }
    }
}
