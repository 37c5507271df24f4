import Foundation

/// Whether a rider's last position still says where they are. An online app sends one at least every
/// `heartbeatSeconds`, standing still too, so a rider waiting at a corner never looks lost; stale is only past
/// `staleAfterSeconds`, three heartbeats, so one lost upload or a slow network does not flip a rider to stale.
public enum RiderPositionFreshness: String, Codable, Sendable {
    case fresh = "FRESH"
    case stale = "STALE"
    /// No fix since the rider first signed in: a dispatcher may still offer by hand, without road distances.
    case none = "NONE"

    public static let heartbeatSeconds: TimeInterval = 30
    public static let staleAfterSeconds: TimeInterval = 90

    public static func of(lastFixAt: Date?, now: Date) -> RiderPositionFreshness {
        guard let lastFixAt else { return .none }
        return now.timeIntervalSince(lastFixAt) > staleAfterSeconds ? .stale : .fresh
    }
}
