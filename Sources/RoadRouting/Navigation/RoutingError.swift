import LogisticsCore

/// Why a route could not be computed.
public enum RoutingError: Error, Equatable, Sendable {
    /// The position is farther from any routable road than the configured limit.
    case notNearRoad(field: String, point: GeoPoint, limitM: Double)
    /// Both ends are on the network but no legal path joins them.
    case noRoute
    /// The request asked for a profile the server has not loaded.
    case profileNotLoaded(RoutingProfile.Name)
    /// The directions provider failed (timeout, error status, unreadable answer).
    case providerUnavailable(String)
}
