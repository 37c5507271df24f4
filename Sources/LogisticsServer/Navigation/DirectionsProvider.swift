import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import Prometheus
import RoadRouting
import ServiceLifecycle

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
    /// The road graph map tiles are drawn from (the default profile's); nil without a map of our own.
    var tileGraph: RoadGraph? { get }
    /// How long an external feed's speed counts, for the feed's answer; nil when the provider takes no feed.
    var trafficExpirySeconds: TimeInterval? { get }
    /// The provider's own background work (learning traffic, customising routes for it), as services to run.
    func backgroundServices(_ context: DirectionsWorkContext) -> [any Service]
    /// Forgets what the provider only remembers for speed; returns how many entries went, by table.
    func forget(now: Date, learnedTallies: Int) -> [String: Int]
}

/// What a provider's background services are given.
public struct DirectionsWorkContext: Sendable {
    let learnedSpeeds: any LearnedSpeedRepository
    let trafficMatchInterval: Duration
    let trafficCustomiseInterval: Duration
    let learnedSpeedsStoreInterval: Duration
    let clock: any WallClock
    let registry: PrometheusCollectorRegistry
    let logger: Logger
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

    public var tileGraph: RoadGraph? { nil }
    public var trafficExpirySeconds: TimeInterval? { nil }
    public func backgroundServices(_ context: DirectionsWorkContext) -> [any Service] { [] }
    public func forget(now: Date, learnedTallies: Int) -> [String: Int] { [:] }

    /// Only a provider holding the road graph can match a trace to it.
    public func match(_ trace: [MapMatcher.Fix], profile: RoutingProfile.Name?) throws -> MapMatcher.Match {
        throw RoutingError.providerUnavailable("the \(name) provider matches no traces")
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
