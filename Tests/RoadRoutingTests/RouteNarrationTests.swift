import Foundation
import LogisticsCore
import RoadRouting
import Testing

extension RoadRoutingSuites {
    @Suite("Route narration: steps, voice, geometry")
    struct RouteNarrationTests {
        static let casino = GeoPoint(lat: 43.7396, lon: 7.4276)
        static let fontvieille = GeoPoint(lat: 43.7289, lon: 7.4170)

        @Test("Place du Casino → Fontvieille by motorcycle: the maneuvers and street names a local would give")
        func handCheckedRoute() async throws {
            let route = try RoutePlanner(map: await MonacoFixture.motorcycle).route(
                RouteRequest(from: Self.casino, to: Self.fontvieille), now: Date())
            let steps = try #require(route.legs.first?.steps)
            // Checked against the OpenStreetMap map: down Boulevard des Moulins and Avenue d'Ostende to Sainte-Dévote,
            // through La Condamine on Rue Grimaldi, the Aureglia and Dorsale tunnels to Fontvieille's roundabouts.
            let expected: [(String, String?, String)] = [
                ("depart", nil, "Place du Casino"),
                ("new name", "straight", "Allées des Boulingrins"),
                ("turn", "left", "Boulevard des Moulins"),
                ("new name", "straight", "Avenue de la Costa"),
                ("turn", "slight right", "Avenue d'Ostende"),
                ("new name", "straight", "Rond-Point Sainte-Dévote"),
                ("new name", "straight", "Rue Grimaldi"),
                ("turn", "right", "Tunnel Aureglia"),
                ("roundabout", nil, "Tunnel Dorsale"),
                ("roundabout", nil, ""),
                ("new name", "straight", "Avenue de Fontvieille"),
                ("roundabout", nil, "Avenue Albert II"),
                ("roundabout", nil, "Avenue des Papalins"),
                ("turn", "right", ""),
                // The door is off the road's end on the left as the rider arrives.
                ("arrive", "left", ""),
            ]
            #expect(steps.map(\.maneuver.type) == expected.map(\.0))
            #expect(steps.map(\.name) == expected.map(\.2))
            for (step, want) in zip(steps, expected) where want.0 != "roundabout" {
                #expect(step.maneuver.modifier == want.1, "\(step.instruction)")
            }
            #expect(steps[2].instruction == "Turn left onto Boulevard des Moulins")
            #expect(steps[8].maneuver.exit == 2)
            #expect(steps[8].instruction == "Enter the roundabout and take the 2nd exit onto Tunnel Dorsale")
            #expect(steps[11].maneuver.exit == 3)
            #expect(steps.last?.instruction == "You have arrived at your destination")
            #expect(steps[0].instruction.hasPrefix("Head "))
            #expect(route.distanceM > 2_400 && route.distanceM < 2_900)
        }

        @Test("geometry, step indices, congestion and voice announcements are consistent on random routes")
        func consistency() async throws {
            let map = await MonacoFixture.motorcycle
            let planner = RoutePlanner(map: map)
            var generator = SeededGenerator(state: 99)
            let nodes = map.graph.routableNodes
            for _ in 0..<50 {
                let from = map.graph.coordinate(nodes.randomElement(using: &generator)!)
                let to = map.graph.coordinate(nodes.randomElement(using: &generator)!)
                let route = try planner.route(
                    RouteRequest(from: from, to: to), now: Date(timeIntervalSince1970: 1_800_000_000))
                let points = try #require(Polyline.decode(route.geometry))
                #expect(route.congestion.count == points.count - 1)
                let steps = route.legs[0].steps
                #expect(steps.first?.geometryStart == 0)
                #expect(steps.last?.geometryEnd == points.count - 1)
                for (step, next) in zip(steps, steps.dropFirst()) {
                    #expect(step.geometryEnd == next.geometryStart)
                    #expect(!step.voiceInstructions.isEmpty, "\(step.instruction)")
                    for voice in step.voiceInstructions {
                        #expect(voice.distanceAlongStepM >= 0 && voice.distanceAlongStepM <= step.distanceM + 0.1)
                    }
                }
                let stepTotal = steps.reduce(0) { $0 + $1.distanceM }
                #expect(abs(stepTotal - route.distanceM) < 1)
                #expect(
                    route.etaAt == RFC3339.string(from: Date(timeIntervalSince1970: 1_800_000_000 + route.durationS)))
            }
        }

        @Test("voice announcements warn at 400 m and 150 m before a maneuver on a long step")
        func voiceDistances() async throws {
            let route = try RoutePlanner(map: await MonacoFixture.motorcycle).route(
                RouteRequest(from: Self.casino, to: Self.fontvieille), now: Date())
            let costa = try #require(route.legs[0].steps.first { $0.name == "Avenue de la Costa" })
            let announcements = costa.voiceInstructions.map(\.announcement)
            #expect(announcements.first?.hasPrefix("In 400 meters, turn slight right onto Avenue d'Ostende") == true)
            #expect(announcements.contains("In 150 meters, turn slight right onto Avenue d'Ostende"))
            #expect(announcements.last == "Turn slight right onto Avenue d'Ostende")
        }

        @Test("the polyline encoder matches the reference example and round-trips")
        func polyline() {
            // Google's documented example, at precision 5.
            let points = [
                GeoPoint(lat: 38.5, lon: -120.2), GeoPoint(lat: 40.7, lon: -120.95),
                GeoPoint(lat: 43.252, lon: -126.453),
            ]
            #expect(Polyline.encode(points, precision: 5) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
            let decoded = Polyline.decode(Polyline.encode(points)) ?? []
            #expect(decoded.count == 3)
            #expect(zip(decoded, points).allSatisfy { abs($0.lat - $1.lat) < 1e-6 && abs($0.lon - $1.lon) < 1e-6 })
        }
    }
}
