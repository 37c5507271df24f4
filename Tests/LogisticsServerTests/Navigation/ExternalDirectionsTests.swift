import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import TestSupport

@Suite("External directions provider", .timeLimit(.minutes(3)))
struct ExternalDirectionsTests {
    /// A directions service on localhost that answers like OSRM, or fails in the way the path asks.
    static func fakeProvider() -> some ApplicationProtocol {
        let router = Router()
        router.get("/{mode}/route/v1/driving/{coordinates}") { request, context -> Response in
            switch context.parameters.get("mode") ?? "" {
            case "ok":
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: Self.osrmAnswer)))
            case "slow":
                try await Task.sleep(for: .seconds(8))
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: Self.osrmAnswer)))
            case "noroute":
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: #"{"code":"NoRoute","message":"Impossible route"}"#)))
            case "fail":
                return Response(status: .internalServerError, body: .init(byteBuffer: ByteBuffer(string: "{}")))
            default:
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "<html>not json")))
            }
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    static let osrmAnswer = """
        {"code":"Ok","waypoints":[{"location":[7.4276,43.7396],"name":"Place du Casino","distance":2.5},
        {"location":[7.417,43.7289],"name":"","distance":7}],
        "routes":[{"distance":2650.5,"duration":240.2,"geometry":"_c`|rAw~fnM??",
        "legs":[{"distance":2650.5,"duration":240.2,"annotation":{"congestion":["low","heavy"]},
        "steps":[{"distance":2650.5,"duration":240.2,"name":"Place du Casino","geometry":"_c`|rAw~fnM??",
        "maneuver":{"type":"depart","location":[7.4276,43.7396],"bearing_after":315},
        "voiceInstructions":[{"distanceAlongGeometry":2650.5,"announcement":"Head northwest"}]},
        {"distance":0,"duration":0,"name":"","maneuver":{"type":"arrive","location":[7.417,43.7289],"bearing_after":0}}]}]}]}
        """

    @Test(
        "success is mapped to our route shape; no route is 422 ROUTE_NOT_FOUND; timeout, 5xx and garbage answer 503 NAVIGATION_UNAVAILABLE"
    )
    func providerOutcomes() async throws {
        let fake = Self.fakeProvider()
        try await fake.test(.live) { fakeClient in
            let base = "http://127.0.0.1:\(fakeClient.port ?? 0)"
            for mode in ["ok", "noroute", "slow", "fail", "garbage"] {
                try await TestServer.run(
                    .sqlite,
                    configure: {
                        $0.routing.provider = .external
                        $0.routing.url = "\(base)/\(mode)"
                    }
                ) { server in
                    let dispatcher = try await server.token(.dispatcher)
                    let started = Date()
                    let reply = try await server.send(
                        .get, "/api/v1/routes?from=43.7396,7.4276&to=43.7289,7.4170", token: dispatcher)
                    if mode == "ok" {
                        #expect(reply.status == 200, "\(reply.text)")
                        #expect(reply["provider"] as? String == "external")
                        #expect(reply["congestion"] as? [String] == ["LOW", "HEAVY"])
                        let steps = ((reply["legs"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]]) ?? []
                        #expect(steps.first?["instruction"] as? String == "Head northwest on Place du Casino")
                        #expect(steps.count == 2)
                    } else if mode == "noroute" {
                        #expect(reply.status == 422)
                        #expect(reply.code == "ROUTE_NOT_FOUND")
                        #expect(reply.contentType == "application/problem+json")
                    } else {
                        #expect(reply.status == 503, "\(mode)")
                        #expect(reply.code == "NAVIGATION_UNAVAILABLE")
                        #expect(
                            reply["title"] as? String
                                == "Navigation service is temporarily unavailable. Please try again shortly.")
                        // The 2 s timeout answers well before the slow provider (8 s) would have; the margin is for
                        // a CI machine running every suite at once on two cores.
                        #expect(Date().timeIntervalSince(started) < 5.5)
                        let metrics = try await server.send(.get, "/metrics")
                        #expect(metrics.text.contains("routing_provider_failures_total{provider=\"external\"} 1"))
                    }
                }
            }
        }
    }
}
