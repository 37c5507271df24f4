import Foundation
import LogisticsCore
import Testing

@testable import RoadRouting

extension RoadRoutingSuites {
    /// Issue #57: "You have arrived" 140 m from the door. Before the door the words say what is ahead and on which
    /// side; arrival is spoken only within the apps' arrival radius of it.
    @Suite("Arrival words: the side of the door, and no arrival before it")
    struct ArrivalWordsTests {
        @Test("the door's side comes from the direction of arrival; a door on the road or ahead is straight")
        func side() {
            let end = GeoPoint(lat: 43.7300, lon: 7.4200)
            // Driving north (bearing 0): east is on the right, west on the left.
            let east = GeoPoint(lat: 43.7300, lon: 7.4203)
            let west = GeoPoint(lat: 43.7300, lon: 7.4197)
            #expect(DestinationSide.modifier(arrivingBearing: 0, roadEnd: end, door: east) == "right")
            #expect(DestinationSide.modifier(arrivingBearing: 0, roadEnd: end, door: west) == "left")
            #expect(DestinationSide.modifier(arrivingBearing: 180, roadEnd: end, door: east) == "left")
            #expect(DestinationSide.modifier(arrivingBearing: 0, roadEnd: end, door: end) == "straight")
            let ahead = GeoPoint(lat: 43.7303, lon: 7.4200)
            #expect(DestinationSide.modifier(arrivingBearing: 0, roadEnd: end, door: ahead) == "straight")
            #expect(DestinationSide.ahead(modifier: "left") == "Your destination is on the left")
            #expect(DestinationSide.ahead(modifier: nil) == "Your destination is ahead")
        }

        @Test("on short and long routes nothing before the last 30 m says the rider has arrived")
        func noEarlyArrival() async throws {
            let map = await MonacoFixture.motorcycle
            let planner = RoutePlanner(map: map)
            var generator = SeededGenerator(state: 57)
            let nodes = map.graph.routableNodes
            var short = 0
            for _ in 0..<60 {
                let from = map.graph.coordinate(nodes.randomElement(using: &generator)!)
                // Half of the routes end a street or two away: the short last legs of the issue.
                let near = GeoPoint(
                    lat: from.lat + Double.random(in: -0.0015...0.0015, using: &generator),
                    lon: from.lon + Double.random(in: -0.0015...0.0015, using: &generator))
                let to = short < 30 ? near : map.graph.coordinate(nodes.randomElement(using: &generator)!)
                guard let route = try? planner.route(RouteRequest(from: from, to: to), now: Date()) else { continue }
                let steps = route.legs[0].steps
                if steps.count == 2 { short += 1 }
                let arrive = try #require(steps.last)
                #expect(arrive.maneuver.type == "arrive")
                #expect(["left", "right", "straight"].contains(arrive.maneuver.modifier ?? ""), "\(arrive.maneuver)")
                let total = steps.reduce(0) { $0 + $1.distanceM }
                var before = 0.0
                for step in steps {
                    for voice in step.voiceInstructions where voice.announcement.lowercased().contains("arrived") {
                        let left = total - (before + voice.distanceAlongStepM)
                        #expect(left <= 30.5, "'\(voice.announcement)' \(left) m before the door")
                    }
                    before += step.distanceM
                }
                // A first street too short for the warning at 150 m says at its start where the door is.
                if steps.count == 2, steps[0].distanceM > 30, steps[0].distanceM < 200 {
                    let first = steps[0].voiceInstructions.first?.announcement ?? ""
                    #expect(first.contains("your destination is"), "\(first)")
                    if steps[0].distanceM >= 100 { #expect(first.contains(", then in "), "\(first)") }
                }
            }
            #expect(short > 3, "some routes were a single street")
        }
    }
}
