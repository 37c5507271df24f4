import Foundation
import LogisticsCore
import LogisticsStore
import RoadRouting

/// Where routes come from: the built-in OpenStreetMap router or an external directions service.
/// Implementations throw `RoutingError`; the `Navigator` turns those into API errors, logs and metrics.
public protocol DirectionsProvider: Sendable {
    var name: String { get }
    /// A line for `/health/ready`.
    var readiness: String { get }
    func route(_ request: RouteRequest, profile: RoutingProfile.Name?, now: Date) async throws -> Route
    /// Lets the provider learn traffic from a rider's fixes (the built-in router does; others ignore them).
    func observe(_ fixes: [LocationFix], riderId: UUID)
    /// A quick, synchronous road travel time for ranking riders; nil when the provider cannot answer locally.
    var roadTravelTime: RoadTravelTime? { get }
    /// Durations and distances between every source and destination (a travel matrix).
    func table(from sources: [GeoPoint], to destinations: [GeoPoint], profile: RoutingProfile.Name?) throws
        -> TravelTable
    /// A GPS trace matched to the roads driven.
    func match(_ trace: [MapMatcher.Fix], profile: RoutingProfile.Name?) throws -> MapMatcher.Match
    /// Takes an external feed's speeds as live traffic; per report, whether some map has its segment.
    func apply(_ reports: [SpeedReport]) throws -> [Bool]
}

extension DirectionsProvider {
    /// Providers that route one pair at a time have no matrix: asking s · t of them would be slower than saying so.
    public func table(from sources: [GeoPoint], to destinations: [GeoPoint], profile: RoutingProfile.Name?) throws
        -> TravelTable
    {
        throw RoutingError.providerUnavailable("the \(name) provider answers no travel matrix")
    }

    /// Only a provider holding the road graph has segments to put speeds on.
    public func apply(_ reports: [SpeedReport]) throws -> [Bool] {
        throw RoutingError.providerUnavailable("the \(name) provider takes no speed feed")
    }

    /// Only a provider holding the road graph can match a trace to it.
    public func match(_ trace: [MapMatcher.Fix], profile: RoutingProfile.Name?) throws -> MapMatcher.Match {
        throw RoutingError.providerUnavailable("the \(name) provider matches no traces")
    }
}

/// The built-in router over the maps loaded at start, one per profile.
public struct BuiltinDirections: DirectionsProvider {
    public let maps: [RoutingProfile.Name: RoadMap]
    public let defaultProfile: RoutingProfile.Name
    public let maxSnapDistanceM: Double
    public let customisers: TrafficCustomisers
    /// Fixes waiting to be matched to the roads and learned from (`TrafficLearning`).
    public let trails: TrafficTrails
    /// Whether the fleet's fixes teach the maps traffic (`LOGISTICS_TRAFFIC_LEARNING`).
    public let learnsTraffic: Bool

    public init(
        maps: [RoutingProfile.Name: RoadMap], defaultProfile: RoutingProfile.Name, maxSnapDistanceM: Double,
        customisers: TrafficCustomisers = TrafficCustomisers(), learnsTraffic: Bool = true
    ) {
        self.learnsTraffic = learnsTraffic
        self.trails = TrafficTrails()
        self.maps = maps
        self.defaultProfile = defaultProfile
        self.maxSnapDistanceM = maxSnapDistanceM
        self.customisers = customisers
    }

    public var name: String { "builtin" }

    public var readiness: String {
        maps.keys.sorted { $0.rawValue < $1.rawValue }.map { "\($0.rawValue): \(maps[$0]!.graph.nodeCount) nodes" }
            .joined(separator: ", ")
    }

    public func route(_ request: RouteRequest, profile: RoutingProfile.Name?, now: Date) async throws -> Route {
        let profile = profile ?? defaultProfile
        guard let map = maps[profile] else { throw RoutingError.profileNotLoaded(profile) }
        let planner = RoutePlanner(map: map, maxSnapDistanceM: maxSnapDistanceM)
        // Past the reach of live speeds, a departure is routed on what was learned for its quarter hour.
        if let departAt = request.departAt, request.metric == .time,
            departAt.timeIntervalSince(now) >= map.traffic.expiry, let customiser = customisers.existing(for: map)
        {
            return try await OffPool.run {
                try planner.route(request, now: now, snapshot: customiser.departureSnapshot(at: departAt, now: now))
            }
        }
        return try planner.route(request, now: now)
    }

    public func table(from sources: [GeoPoint], to destinations: [GeoPoint], profile: RoutingProfile.Name?) throws
        -> TravelTable
    {
        let profile = profile ?? defaultProfile
        guard let map = maps[profile] else { throw RoutingError.profileNotLoaded(profile) }
        return try RoutePlanner(map: map, maxSnapDistanceM: maxSnapDistanceM).table(from: sources, to: destinations)
    }

    public func match(_ trace: [MapMatcher.Fix], profile: RoutingProfile.Name?) throws -> MapMatcher.Match {
        let profile = profile ?? defaultProfile
        guard let map = maps[profile] else { throw RoutingError.profileNotLoaded(profile) }
        return MapMatcher(map: map).match(trace)
    }

    public var roadTravelTime: RoadTravelTime? {
        guard let map = maps[defaultProfile] else { return nil }
        let planner = RoutePlanner(map: map, maxSnapDistanceM: maxSnapDistanceM)
        return RoadTravelTime { from, to in
            try? planner.route(RouteRequest(from: from, to: to), now: Date()).durationS
        }
    }

    public func apply(_ reports: [SpeedReport]) throws -> [Bool] {
        reports.map { report in maps.values.reduce(false) { $1.apply(report) || $0 } }
    }

    public func observe(_ fixes: [LocationFix], riderId: UUID) {
        guard learnsTraffic else { return }
        trails.add(fixes, riderId: riderId)
    }
}

/// No provider is usable (no map configured): every route request is a provider failure with this cause.
struct UnavailableDirections: DirectionsProvider {
    let cause: String

    var name: String { "builtin" }
    var readiness: String { "unavailable: \(cause)" }

    func route(_ request: RouteRequest, profile: RoutingProfile.Name?, now: Date) async throws -> Route {
        throw RoutingError.providerUnavailable(cause)
    }

    func observe(_ fixes: [LocationFix], riderId: UUID) {}
    var roadTravelTime: RoadTravelTime? { nil }
}
