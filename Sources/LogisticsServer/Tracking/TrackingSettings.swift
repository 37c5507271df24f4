import Foundation
import NIOCore

/// Live tracking: when a stream turns stale, how long links last, how often sockets are pinged.
public struct TrackingSettings: Sendable, Equatable {
    /// A tracking stream turns `stale` after this long without a fix (the contract's 15 s; tests shorten it).
    public var staleSeconds = 15
    /// How long after its order ended a tracking link still shows the end; after that it answers 410.
    public var linkHoursAfterEnd = 24
    /// How often a socket's peer is pinged; one that has not answered the previous ping is cut (tests shorten it).
    public var socketPingSeconds: Double = 20

    public init() {}

    var socketPing: TimeAmount { .milliseconds(Int64(socketPingSeconds * 1000)) }

    static var environment: [EnvironmentSetting<Self>] {
        [
            .whole("LOGISTICS_TRACKING_STALE_SECONDS", \.staleSeconds, in: 1...3600),
            .whole("LOGISTICS_TRACKING_LINK_HOURS_AFTER_END", \.linkHoursAfterEnd, in: 0...8760),
        ]
    }
}
