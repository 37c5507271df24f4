/// Which roads a vehicle may use, in which direction, and how fast: the OSM tagging rules of one vehicle type.
public struct RoutingProfile: Sendable, Equatable {
    public enum Name: String, Sendable, CaseIterable, Codable {
        case motorcycle
        case car
    }

    public let name: Name

    public init(_ name: Name) { self.name = name }

    /// Free-flow speeds in km/h by `highway` class. Urban delivery speeds, not speed limits: riders stop at lights.
    private var defaultSpeeds: [String: Double] {
        switch name {
        case .car:
            [
                "motorway": 90, "motorway_link": 45, "trunk": 70, "trunk_link": 40, "primary": 50, "primary_link": 30,
                "secondary": 40, "secondary_link": 30, "tertiary": 35, "tertiary_link": 25, "unclassified": 30,
                "residential": 25, "living_street": 10, "service": 15, "road": 20,
            ]
        case .motorcycle:
            // Two-wheelers filter through traffic and fit narrow service lanes, so minor roads are a little faster.
            [
                "motorway": 80, "motorway_link": 45, "trunk": 65, "trunk_link": 40, "primary": 50, "primary_link": 30,
                "secondary": 42, "secondary_link": 30, "tertiary": 38, "tertiary_link": 28, "unclassified": 32,
                "residential": 28, "living_street": 12, "service": 18, "road": 22, "track": 12,
            ]
        }
    }

    /// Access tags from the most to the least specific for this vehicle.
    private var accessKeys: [String] {
        switch name {
        case .car: ["motorcar", "motor_vehicle", "vehicle", "access"]
        case .motorcycle: ["motorcycle", "motor_vehicle", "vehicle", "access"]
        }
    }

    private static let allowedAccess: Set<String> = [
        "yes", "designated", "permissive", "destination", "delivery", "customers", "official",
    ]
    private static let deniedAccess: Set<String> = [
        "no", "private", "agricultural", "forestry", "military", "use_sidepath",
    ]

    /// What the profile makes of one way; nil when the vehicle may not use it at all.
    public func rules(for tags: [String: String]) -> WayRules? {
        guard let highway = tags["highway"], let classSpeed = defaultSpeeds[highway] else { return nil }
        if tags["area"] == "yes" { return nil }
        for key in accessKeys {
            guard let value = tags[key] else { continue }
            if Self.deniedAccess.contains(value) { return nil }
            if Self.allowedAccess.contains(value) { break }
        }
        let speed = Self.parseMaxspeed(tags["maxspeed"]).map { min($0 * 0.9, classSpeed * 1.5) } ?? classSpeed
        let isRoundabout = tags["junction"] == "roundabout" || tags["junction"] == "circular"
        var forward = true
        var backward = true
        switch tags["oneway"] {
        case "yes", "true", "1": backward = false
        case "-1", "reverse": forward = false
        case "no", "false", "0": break
        default:
            if isRoundabout || highway == "motorway" { backward = false }
        }
        return WayRules(
            roadClass: RoadClass(highway: highway), speedKmh: max(5, speed), forward: forward, backward: backward,
            isRoundabout: isRoundabout)
    }

    /// Whether a `restriction` relation binds this vehicle (`restriction:motorcar`, `except=motorcycle`, …).
    public func restriction(from tags: [String: String]) -> TurnRestriction.Kind? {
        guard tags["type"] == "restriction" else { return nil }
        let vehicleKey = name == .car ? "motorcar" : "motorcycle"
        if let except = tags["except"], except.split(separator: ";").contains(where: { $0 == vehicleKey }) {
            return nil
        }
        let value = tags["restriction:\(vehicleKey)"] ?? tags["restriction:motor_vehicle"] ?? tags["restriction"]
        guard let value else { return nil }
        if value.hasPrefix("no_") { return .forbidden }
        if value.hasPrefix("only_") { return .mandatory }
        return nil
    }

    /// km/h from `maxspeed` values such as `50`, `30 mph` and `FR:urban`; nil for `none`, `signals` and unknowns.
    static func parseMaxspeed(_ value: String?) -> Double? {
        guard let value = value?.lowercased() else { return nil }
        let zones: [String: Double] = ["urban": 50, "rural": 80, "living_street": 20, "walk": 7, "zone30": 30]
        if let colon = value.firstIndex(of: ":"), let zone = zones[String(value[value.index(after: colon)...])] {
            return zone
        }
        let digits = value.prefix { $0.isNumber || $0 == "." }
        guard let number = Double(digits), number > 0 else { return nil }
        return value.contains("mph") ? number * 1.609_344 : number
    }
}

/// What a profile decided about one way.
public struct WayRules: Sendable, Equatable {
    public var roadClass: RoadClass
    public var speedKmh: Double
    public var forward: Bool
    public var backward: Bool
    public var isRoundabout: Bool
}

/// Road hierarchy, kept per way for instructions and the generated benchmark graphs.
public enum RoadClass: UInt8, Sendable {
    case motorway, trunk, primary, secondary, tertiary, minor, service, link

    init(highway: String) {
        switch highway {
        case "motorway": self = .motorway
        case "trunk": self = .trunk
        case "primary": self = .primary
        case "secondary": self = .secondary
        case "tertiary": self = .tertiary
        case "service", "living_street", "track": self = .service
        default: self = highway.hasSuffix("_link") ? .link : .minor
        }
    }
}

/// A turn the vehicle may not take (`no_*`) or the only turn it may take (`only_*`) from one way to another at a node.
public struct TurnRestriction: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case forbidden
        case mandatory
    }

    public var kind: Kind
    public var fromWay: Int64
    public var viaNode: Int64
    public var toWay: Int64
}
