import Foundation
import Logging
import LogisticsCore
import RoadRouting
import ServiceLifecycle
import Synchronization
import Threads

/// Riders' fixes waiting to teach the maps traffic. Matching a trail to the roads costs too much CPU a fix for the
/// request that brings it (docs/performance.md, map matching), so fixes wait here and `TrafficLearning` matches
/// them in the background, each rider's with the last few fixes before them for context.
public final class TrafficTrails: Sendable {
    struct Trail {
        /// Fixes already learned from, kept to steer the next match.
        var context: [TrafficFix] = []
        var fresh: [TrafficFix] = []
        var lastSeen = Date.distantPast
    }

    /// Fixes kept for context, and the most a rider may have waiting (older ones are dropped: traffic is
    /// best-effort evidence, and a backlog would only be stale).
    static let contextFixes = 4
    /// Fixes after the ones learned from, so the matcher decides each with some of what came next.
    static let lookAhead = 2
    static let lookAheadWait: TimeInterval = 20
    public static let maximumWaiting = 500
    /// A trail not heard from for this long starts afresh: its context no longer joins the next fix.
    static let forgetAfter: TimeInterval = 120

    private let trails = Mutex<[UUID: Trail]>([:])

    public init() {}

    public func add(_ fixes: [LocationFix], riderId: UUID) {
        let taken = fixes.map { TrafficFix(point: $0.point, speedMps: $0.speedMps, recordedAt: $0.recordedAt) }
        trails.withLock { trails in
            var trail = trails[riderId] ?? Trail()
            trail.fresh.append(contentsOf: taken)
            if trail.fresh.count > Self.maximumWaiting {
                trail.fresh.removeFirst(trail.fresh.count - Self.maximumWaiting)
            }
            trails[riderId] = trail
        }
    }

    /// Every rider's waiting fixes with their context before and, to look ahead, the newest two after: the range
    /// to learn from is the middle. The newest two wait for the next round (or are learned without look-ahead
    /// once `lookAheadWait` old: a rider who stopped sending).
    public func take(now: Date) -> [(trail: [TrafficFix], learning: Range<Int>)] {
        trails.withLock { trails in
            var taken: [(trail: [TrafficFix], learning: Range<Int>)] = []
            for (rider, var trail) in trails {
                if trail.fresh.isEmpty {
                    if now.timeIntervalSince(trail.lastSeen) > Self.forgetAfter { trails[rider] = nil }
                    continue
                }
                let fresh = trail.fresh.sorted { $0.recordedAt < $1.recordedAt }
                let context = trail.context.filter { fix in
                    fresh[0].recordedAt.timeIntervalSince(fix.recordedAt) <= Self.forgetAfter
                        && fix.recordedAt <= fresh[0].recordedAt
                }
                let stale = now.timeIntervalSince(fresh[fresh.count - 1].recordedAt) >= Self.lookAheadWait
                let decided = stale ? fresh.count : max(0, fresh.count - Self.lookAhead)
                trail.lastSeen = now
                guard decided > 0 else {
                    trails[rider] = trail
                    continue
                }
                taken.append((context + fresh, context.count..<(context.count + decided)))
                trail.context = Array((context + fresh.prefix(decided)).suffix(Self.contextFixes))
                trail.fresh = Array(fresh.dropFirst(decided))
                trails[rider] = trail
            }
            return taken
        }
    }
}

/// Matches the riders' waiting fixes to the roads every `interval` and teaches each map their speeds: live traffic
/// and the time-of-day speeds.
struct TrafficLearning: Service {
    let trails: TrafficTrails
    let maps: [RoadMap]
    let interval: Duration
    let clock: any WallClock

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                await learn()
            }
        }
    }

    func learn() async {
        let taken = trails.take(now: clock.now())
        guard !taken.isEmpty else { return }
        let maps = self.maps
        await OwnThread.run {
            for map in maps {
                for (trail, learning) in taken { map.observe(trail: trail, learning: learning) }
            }
        }
    }
}
