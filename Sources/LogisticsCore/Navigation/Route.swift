/// A route as the API returns it, shaped like the common directions APIs (OSRM, Mapbox) so standard navigation
/// clients can read it. Distances in metres, durations in seconds, positions as `{lat, lon}`.
public struct Route: Codable, Sendable, Equatable {
    public var distanceM: Double
    public var durationS: Double
    public var etaAt: String
    /// The whole path as an encoded polyline with precision 6.
    public var geometry: String
    public var legs: [RouteLeg]
    /// One entry per geometry segment.
    public var congestion: [String]
    public var provider: String
    /// Age of the newest live speed used on this route; nil when only free-flow speeds applied.
    public var dataAgeS: Int?
    /// Where the start and the destination were snapped onto the road network.
    public var waypoints: [Waypoint]

    public init(
        distanceM: Double, durationS: Double, etaAt: String, geometry: String, legs: [RouteLeg], congestion: [String],
        provider: String, dataAgeS: Int?, waypoints: [Waypoint]
    ) {
        self.distanceM = distanceM
        self.durationS = durationS
        self.etaAt = etaAt
        self.geometry = geometry
        self.legs = legs
        self.congestion = congestion
        self.provider = provider
        self.dataAgeS = dataAgeS
        self.waypoints = waypoints
    }
}

public struct Waypoint: Codable, Sendable, Equatable {
    public var location: GeoPoint
    public var name: String
    /// How far the requested position was from the road it was snapped to.
    public var snapDistanceM: Double

    public init(location: GeoPoint, name: String, snapDistanceM: Double) {
        self.location = location
        self.name = name
        self.snapDistanceM = snapDistanceM
    }
}

public struct RouteLeg: Codable, Sendable, Equatable {
    public var distanceM: Double
    public var durationS: Double
    public var steps: [RouteStep]

    public init(distanceM: Double, durationS: Double, steps: [RouteStep]) {
        self.distanceM = distanceM
        self.durationS = durationS
        self.steps = steps
    }
}

public struct RouteStep: Codable, Sendable, Equatable {
    public var maneuver: Maneuver
    public var name: String
    public var distanceM: Double
    public var durationS: Double
    public var instruction: String
    public var voiceInstructions: [VoiceInstruction]
    /// The step's part of the route geometry: points `geometryStart ... geometryEnd` of the decoded polyline, so a
    /// client can tell which step it is on and when it has left the route.
    public var geometryStart: Int
    public var geometryEnd: Int

    public init(
        maneuver: Maneuver, name: String, distanceM: Double, durationS: Double, instruction: String,
        voiceInstructions: [VoiceInstruction], geometryStart: Int, geometryEnd: Int
    ) {
        self.maneuver = maneuver
        self.name = name
        self.distanceM = distanceM
        self.durationS = durationS
        self.instruction = instruction
        self.voiceInstructions = voiceInstructions
        self.geometryStart = geometryStart
        self.geometryEnd = geometryEnd
    }
}

public struct Maneuver: Codable, Sendable, Equatable {
    /// `depart`, `turn`, `new name`, `continue`, `roundabout`, `arrive`.
    public var type: String
    /// `left`, `right`, `slight left`, `slight right`, `sharp left`, `sharp right`, `straight`, `uturn`.
    public var modifier: String?
    public var location: GeoPoint
    public var bearingAfter: Int
    /// For roundabouts: the exit to take, counting from 1.
    public var exit: Int?

    public init(type: String, modifier: String?, location: GeoPoint, bearingAfter: Int, exit: Int?) {
        self.type = type
        self.modifier = modifier
        self.location = location
        self.bearingAfter = bearingAfter
        self.exit = exit
    }
}

public struct VoiceInstruction: Codable, Sendable, Equatable {
    /// How far into the step the announcement is spoken.
    public var distanceAlongStepM: Double
    public var announcement: String

    public init(distanceAlongStepM: Double, announcement: String) {
        self.distanceAlongStepM = distanceAlongStepM
        self.announcement = announcement
    }
}
