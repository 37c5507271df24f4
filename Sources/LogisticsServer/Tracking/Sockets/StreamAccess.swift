import Foundation
import LogisticsCore
import NIOCore

/// What every live stream needs to let a caller in and keep them in: token admission, the caps on each caller's
/// sockets and messages, the watch that ends access, the clock, and the hub the stream follows.
struct StreamAccess: Sendable {
    let admission: BearerAdmission
    let callers: CallerLimits
    let revocationWatch: RevocationWatch
    let hub: TrackingHub
    let clock: any WallClock
    /// How each stream's socket is named in metrics, and how often idle peers are pinged.
    let metrics: RequestMetrics
    let pingInterval: TimeAmount
}
