import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import Prometheus
import RoadRouting
import ServiceLifecycle
import Threads

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
            return try await OwnThread.run {
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
        return RoadTravelTime { from, to, vehicle in
            // Timed by the rider's vehicle: a bicycle on the motorcycle graph is no faster than its own speed.
            (try? planner.route(RouteRequest(from: from, to: to), now: Date())).map {
                RiderTravelTime.seconds(roadSeconds: $0.durationS, distanceM: $0.distanceM, vehicle: vehicle)
            }
        }
    }

    public func apply(_ reports: [SpeedReport]) throws -> [Bool] {
        reports.map { report in maps.values.reduce(false) { $1.apply(report) || $0 } }
    }

    public func observe(_ fixes: [LocationFix], riderId: UUID) {
        guard learnsTraffic else { return }
        trails.add(fixes, riderId: riderId)
    }

    public var tileGraph: RoadGraph? { maps[defaultProfile]?.graph }

    public var trafficExpirySeconds: TimeInterval? { maps.values.first?.traffic.expiry }

    /// The maps learn traffic from the fleet's fixes and customise their routes for it.
    public func backgroundServices(_ context: DirectionsWorkContext) -> [any Service] {
        let maps = Array(self.maps.values)
        let routing = TrafficRouting(
            maps: maps, customisers: customisers, interval: context.trafficCustomiseInterval, clock: context.clock,
            registry: context.registry, logger: context.logger)
        // Feed speeds still time routes without learning; folding them into route choice is the customiser's job.
        guard learnsTraffic else { return [routing] }
        return [
            TrafficLearning(trails: trails, maps: maps, interval: context.trafficMatchInterval, clock: context.clock),
            SpeedLearning(
                maps: maps, repository: context.learnedSpeeds, interval: context.learnedSpeedsStoreInterval,
                clock: context.clock, logger: context.logger),
            routing,
        ]
    }

    public func forget(now: Date, learnedTallies: Int) -> [String: Int] {
        var forgotten: [String: Int] = [:]
        for map in maps.values {
            forgotten["learned_speeds", default: 0] += map.learned.cap(learnedTallies)
            // Reading the fresh speeds drops the expired ones (a customisation does the same).
            _ = map.traffic.freshSpeeds(now: now)
            forgotten["departures", default: 0] += customisers.existing(for: map)?.forgetDepartures(now: now) ?? 0
        }
        return forgotten
    }
}
