import Foundation
import RoadRouting

/// The road map, the routing provider and how traffic is learned.
public struct RoutingSettings: Sendable, Equatable {
    /// An `.osm.pbf` extract (imported and cached in the data dir on first start) or a prepared `.graph` file.
    /// Without one, navigation answers 503 NAVIGATION_UNAVAILABLE.
    public var mapPath: String?
    /// Where graphs imported from a `.pbf` are cached; `<data-dir>/maps` by default.
    public var mapCacheDirectoryOverride: String?
    public var profile: RoutingProfileName = .motorcycle
    public var provider: RoutingProviderKind = .builtin
    /// Base URL of an OSRM/Mapbox-style directions service, for `provider == .external`.
    public var url: String?
    /// A file holding the external provider's access key (never the key itself in configuration).
    public var keyFile: String?
    /// Positions farther than this from any routable road are refused with 422.
    public var maxSnapDistanceM: Double = 300
    /// How often live speeds are customised into route choice (the built-in router).
    public var trafficCustomiseMilliseconds = 30_000
    /// Whether the built-in router learns traffic from the fleet's fixes (live and time-of-day speeds). Off, routes
    /// and ETAs use the profile's speeds and an external feed's only: the baseline `logistics-bench eta` compares.
    public var trafficLearning = true
    /// How often riders' new fixes are matched to the roads and learned from (the built-in router).
    public var trafficMatchMilliseconds = 500
    /// How often this instance stores the speeds it learned and reads what the others stored.
    public var learnedSpeedsStoreMilliseconds = 60_000
    /// The city's time zone: learned speeds are kept per quarter hour of its week (rush hours follow local time).
    public var timeZone = TimeZone(identifier: "UTC")!

    public init() {}

    static var environment: [EnvironmentSetting<Self>] {
        [
            .text("LOGISTICS_MAP", \.mapPath),
            .text("LOGISTICS_MAP_CACHE_DIR", \.mapCacheDirectoryOverride),
            .choice("LOGISTICS_ROUTING_PROFILE", \.profile, saying: "motorcycle or car"),
            .choice("LOGISTICS_ROUTING_PROVIDER", \.provider, saying: "builtin or external"),
            .text("LOGISTICS_ROUTING_URL", \.url),
            .text("LOGISTICS_ROUTING_KEY_FILE", \.keyFile),
            .whole("LOGISTICS_MAX_SNAP_DISTANCE_M", \.maxSnapDistanceM, in: 1...10_000),
            .whole("LOGISTICS_TRAFFIC_CUSTOMISE_MS", \.trafficCustomiseMilliseconds, in: 100...3_600_000),
            .onOff("LOGISTICS_TRAFFIC_LEARNING", \.trafficLearning),
            .whole("LOGISTICS_TRAFFIC_MATCH_MS", \.trafficMatchMilliseconds, in: 10...60_000),
            .whole("LOGISTICS_LEARNED_SPEEDS_STORE_MS", \.learnedSpeedsStoreMilliseconds, in: 100...3_600_000),
            EnvironmentSetting(name: "LOGISTICS_TIME_ZONE") { settings, zone in
                guard let parsed = TimeZone(identifier: zone) else {
                    throw ConfigurationError(
                        "LOGISTICS_TIME_ZONE must be a time zone name such as Europe/Monaco or UTC")
                }
                settings.timeZone = parsed
            },
        ]
    }
}

public typealias RoutingProfileName = RoutingProfile.Name

public enum RoutingProviderKind: String, Sendable {
    case builtin
    case external
}
