import LogisticsCore

/// A route in the API's JSON, written by hand: `JSONEncoder` took more of a route request's time than finding the
/// route did. The same bytes as `APIJSON.encoder` (sorted keys, absent optionals left out); `RouteJSONTests` holds
/// the two to it.
extension Route {
    var apiJSON: [UInt8] {
        var output = JSONOutput(capacity: 1024 + legs.reduce(0) { $0 + $1.steps.count * 400 } + geometry.utf8.count)
        output.object { route in
            route.array("congestion", congestion) { $0.element($1) }
            route.field("dataAgeS", dataAgeS)
            route.field("distanceM", distanceM)
            route.field("durationS", durationS)
            route.field("etaAt", etaAt)
            route.field("geometry", geometry)
            route.array("legs", legs) { output, leg in
                output.object { leg.write(&$0) }
            }
            route.field("provider", provider)
            route.array("waypoints", waypoints) { output, waypoint in
                output.object { object in
                    object.object("location") { waypoint.location.write(&$0) }
                    object.field("name", waypoint.name)
                    object.field("snapDistanceM", waypoint.snapDistanceM)
                }
            }
        }
        return output.bytes
    }
}

extension RouteLeg {
    fileprivate func write(_ output: inout JSONOutput) {
        output.field("distanceM", distanceM)
        output.field("durationS", durationS)
        output.array("steps", steps) { output, step in
            output.object { step.write(&$0) }
        }
    }
}

extension RouteStep {
    fileprivate func write(_ output: inout JSONOutput) {
        output.field("distanceM", distanceM)
        output.field("durationS", durationS)
        output.field("geometryEnd", geometryEnd)
        output.field("geometryStart", geometryStart)
        output.field("instruction", instruction)
        output.object("maneuver") { object in
            object.field("bearingAfter", maneuver.bearingAfter)
            object.field("exit", maneuver.exit)
            object.object("location") { maneuver.location.write(&$0) }
            object.field("modifier", maneuver.modifier)
            object.field("type", maneuver.type)
        }
        output.field("name", name)
        output.array("voiceInstructions", voiceInstructions) { output, voice in
            output.object { object in
                object.field("announcement", voice.announcement)
                object.field("distanceAlongStepM", voice.distanceAlongStepM)
            }
        }
    }
}

extension GeoPoint {
    fileprivate func write(_ output: inout JSONOutput) {
        output.field("accuracyM", accuracyM)
        output.field("lat", lat)
        output.field("lon", lon)
    }
}
