import Foundation
import Logging
import LogisticsCore
import Prometheus
import RoadRouting

/// Asks the configured provider for a route and turns what goes wrong into the API's errors: a provider failure
/// is logged with its cause, counted, and answered 503 NAVIGATION_UNAVAILABLE (**R** RDR-017-AC-06).
public struct Navigator: Sendable {
    public let provider: any DirectionsProvider
    let registry: PrometheusCollectorRegistry
    let logger: Logger

    /// False on a server started without a map: every route then fails, and is logged and counted as a failure.
    var hasMap: Bool { !(provider is UnavailableDirections) }

    public init(provider: any DirectionsProvider, registry: PrometheusCollectorRegistry = .init(), logger: Logger) {
        self.provider = provider
        self.registry = registry
        self.logger = logger
    }

    private static let buckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(20), .milliseconds(50), .milliseconds(100), .milliseconds(500), .seconds(2),
    ]

    public func route(_ request: RouteRequest, profile: RoutingProfile.Name?, now: Date) async throws -> Route {
        let started = ContinuousClock.now
        do {
            let route = try await provider.route(request, profile: profile, now: now)
            registry.durationHistogram(
                .routingDuration, labels: [("provider", provider.name)], buckets: Self.buckets
            ).record(ContinuousClock.now - started)
            return route
        } catch let error as RoutingError {
            throw mapped(error)
        } catch {
            throw mapped(.providerUnavailable("\(error)"))
        }
    }

    /// A travel matrix from the provider, its failures turned into the API's errors as for routes.
    public func table(from sources: [GeoPoint], to destinations: [GeoPoint], profile: RoutingProfile.Name?)
        throws -> TravelTable
    {
        let started = ContinuousClock.now
        do {
            let table = try provider.table(from: sources, to: destinations, profile: profile)
            registry.durationHistogram(
                .matrixDuration, labels: [("provider", provider.name)], buckets: Self.buckets
            ).record(ContinuousClock.now - started)
            return table
        } catch let error as RoutingError {
            throw mapped(error)
        } catch {
            throw mapped(.providerUnavailable("\(error)"))
        }
    }

    /// A trace matched to the roads by the provider, its failures turned into the API's errors as for routes.
    public func match(_ trace: [MapMatcher.Fix], profile: RoutingProfile.Name?) throws -> MapMatcher.Match {
        do {
            return try provider.match(trace, profile: profile)
        } catch let error as RoutingError {
            throw mapped(error)
        } catch {
            throw mapped(.providerUnavailable("\(error)"))
        }
    }

    /// An external feed's speeds applied by the provider; per report, whether its segment was found.
    public func apply(_ reports: [SpeedReport]) throws -> [Bool] {
        do {
            return try provider.apply(reports)
        } catch let error as RoutingError {
            throw mapped(error)
        } catch {
            throw mapped(.providerUnavailable("\(error)"))
        }
    }

    private func mapped(_ error: RoutingError) -> LogisticsError {
        switch error {
        case .notNearRoad(let field, let point, let limit):
            return LogisticsError(
                .locationNotRoutable,
                "\(field) (\(point.lat), \(point.lon)) is more than \(Int(limit)) m from any road a rider can use",
                extras: ["field": .string(field), "maxSnapDistanceM": .double(limit)])
        case .noRoute:
            return LogisticsError(.routeNotFound, "No legal road route joins these two places")
        case .profileNotLoaded(let profile):
            return .validation(field: "profile", "the \(profile.rawValue) profile is not loaded on this server")
        case .providerUnavailable(let cause):
            logger.error("navigation provider failed", metadata: ["provider": "\(provider.name)", "cause": "\(cause)"])
            registry.counter(.routingProviderFailures, labels: [("provider", provider.name)])
                .increment()
            return LogisticsError(.navigationUnavailable, "The route could not be computed right now")
        }
    }
}
