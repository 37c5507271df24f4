import Foundation
import Synchronization

/// Spreads request starts evenly at a target rate across all simulated riders (an open-loop load),
/// so latency is measured at a chosen throughput rather than at saturation.
final class Pacer: Sendable {
    private let interval: Duration
    private let next: Mutex<ContinuousClock.Instant>

    init(requestsPerSecond: Double) {
        interval = .nanoseconds(Int64(1e9 / requestsPerSecond))
        next = Mutex(.now)
    }

    func wait() async {
        let slot = next.withLock { next -> ContinuousClock.Instant in
            let now = ContinuousClock.now
            let slot = next < now ? now : next
            next = slot + interval
            return slot
        }
        if slot > .now { try? await Task.sleep(until: slot, clock: .continuous) }
    }
}
