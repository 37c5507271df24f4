import Foundation
import Synchronization

/// What the simulated fleet did, counted as it happens and printed live and at the end.
final class SimulationReport: Sendable {
    struct Counts: Sendable {
        var deliveriesStarted = 0
        var deliveriesCompleted = 0
        var statusCalls = 0
        var replays = 0
        var acceptRetries = 0
        var networkDrops = 0
        var tunnels = 0
        var fixesSent = 0
        var lateFixes = 0
        var farArrivals = 0
        var straightLineLegs = 0
        var wrongTurns = 0
        var reroutes = 0
        var gpsSearches = 0
        /// Fixes driven on a street the traffic scenario had slowed at the time.
        var slowedFixes = 0
        var errors: [String] = []
        var riding = 0
    }

    private let counts = Mutex(Counts())

    var snapshot: Counts { counts.withLock { $0 } }

    func update(_ change: (inout Counts) -> Void) { counts.withLock { change(&$0) } }

    func error(_ text: String) {
        counts.withLock { counts in
            if counts.errors.count < 50 { counts.errors.append(text) }
        }
    }

    /// Claims the next delivery if the target is not reached yet.
    func startDelivery(limit: Int?) -> Bool {
        counts.withLock { counts in
            if let limit, counts.deliveriesStarted >= limit { return false }
            counts.deliveriesStarted += 1
            return true
        }
    }

    func liveLine(riders: Int, elapsed: TimeInterval, target: Int?) -> String {
        let counts = snapshot
        let goal = target.map { "/\($0)" } ?? ""
        let width = 20
        let done = target.map { min(width, counts.deliveriesCompleted * width / max($0, 1)) } ?? 0
        let bar =
            target == nil
            ? "" : "[" + String(repeating: "#", count: done) + String(repeating: ".", count: width - done) + "] "
        // What the simulation does on purpose (drops, tunnels, wrong turns) is said as such; errors only when there
        // are any, with the last one, so "errors 0" never needs explaining.
        var line = String(
            format: "%@%4.0fs  riders %d (on the road %d)  delivered %d%@  status taps %d",
            bar, elapsed, riders, counts.riding, counts.deliveriesCompleted, goal, counts.statusCalls)
        line +=
            "  (simulated: \(counts.networkDrops) network drops, \(counts.tunnels) tunnels, \(counts.reroutes) wrong turns "
            + "re-routed; \(counts.replays) taps replayed after a drop)"
        if let last = counts.errors.last {
            line += "  \(counts.errors.count) unexpected error\(counts.errors.count == 1 ? "" : "s"), the last: \(last)"
        }
        return line
    }

    func finalReport(elapsed: TimeInterval) -> [String] {
        let counts = snapshot
        var lines = [
            "Simulation finished after \(Int(elapsed)) s",
            "  deliveries started      \(counts.deliveriesStarted)",
            "  status calls            \(counts.statusCalls)",
            "  replayed after a drop   \(counts.replays) actions (\(counts.networkDrops) network drops)",
            "  accept retries          \(counts.acceptRetries)",
            "  fixes sent              \(counts.fixesSent) (\(counts.lateFixes) late, after a drop; \(counts.tunnels) tunnels without GPS)",
            "  far-arrival questions   \(counts.farArrivals)",
            "  wrong turns             \(counts.wrongTurns) (\(counts.reroutes) re-routes)",
            "  searching for GPS       \(counts.gpsSearches)",
            "  fixes on slowed streets \(counts.slowedFixes)",
            "  legs without a road route \(counts.straightLineLegs)",
            "  errors                  \(counts.errors.count)",
        ]
        lines += counts.errors.prefix(10).map { "    \($0)" }
        lines.append("deliveries completed: \(counts.deliveriesCompleted)")
        return lines
    }
}
