import Foundation
import Synchronization

/// Puts live and learned speeds into route choice: turns the fresh observations of a map's `LiveTraffic` and the
/// speeds its `LearnedSpeeds` hold for this time of the week into arc weights,
/// customises a hierarchy for them in the prepared hierarchy's contraction order, and swaps it in for the fastest
/// routes (travel matrices included) in one step.
///
/// The order is the expensive part of a contraction and is kept. Two ways reuse it:
/// - triangles: a customisable hierarchy in that order (`CustomisableHierarchy`), when its shortcut structure
///   stays small, as on real street networks (Monaco's customises in milliseconds);
/// - re-contraction: witness searches again, in the same order, when the structure would be too large without them
///   (grids: every node has many equal alternatives, and the structure grows without bound).
public final class TrafficCustomiser: Sendable {
    public enum Method: String, Sendable {
        case triangles
        case recontraction
    }

    public let map: RoadMap
    public let method: Method
    /// For re-contraction: the share of the order, its top, ordered again for the new weights (see
    /// `ContractionHierarchy.build(graph:weights:ranks:metric:reorderedTop:)`).
    public let reorderedTop: Double
    private let structure: CustomisableHierarchy?
    private let ranks: [Int32]
    /// Per arc: the arc on the original node whose live speed it shares (restriction copies repeat arcs).
    private let canonical: [Int32]
    /// What the installed snapshot was customised from, and when its first live speed expires.
    private struct Installed {
        var live = 0
        var learned = 0
        var slot: WeekSlot?
        var firstExpiry: Date?
    }
    private let installed = Mutex(Installed())

    private struct Departure {
        var snapshot: RoutingSnapshot
        var revision: Int
        var madeAt: Date
    }
    /// Departure search data by slot; at most 16 are kept.
    private let departures = Mutex<[WeekSlot: Departure]>([:])

    /// On the 1M-node grid with a tenth of its arcs jammed, ordering the top 1 % again brought queries closest to
    /// the static hierarchy's; larger shares gained nothing more and made the customisation longer
    /// (`logistics-bench customisation`, docs/performance.md).
    public static let defaultReorderedTop = 0.01

    /// The customisable structure's size, for the triangle method.
    public var structureEdges: Int? { structure?.edgeCount }
    public var structureBytes: Int { structure?.memoryBytes ?? ranks.count * 4 }

    /// Nil when the map has no hierarchy for the fastest routes. Costs one structure build: call it off the
    /// cooperative pool.
    public init?(map: RoadMap, reorderedTop: Double = TrafficCustomiser.defaultReorderedTop) {
        guard let prepared = map.hierarchies[.time] else { return nil }
        self.map = map
        self.reorderedTop = reorderedTop
        ranks = HierarchyOrder.ranks(of: prepared)
        // Twice the prepared hierarchy's edges: real street maps need about as many as the hierarchy, grids far more.
        let limit = 2 * (prepared.forwardEdges.count + prepared.backwardEdges.count)
        structure = CustomisableHierarchy(graph: map.graph, ranks: ranks, edgeLimit: limit)
        method = structure == nil ? .recontraction : .triangles
        canonical = (0..<map.graph.arcCount).map { Int32(map.canonicalArc($0)) }
    }

    /// The fastest-route weight of every arc now: a fresh live speed beats the speed learned for this time of the
    /// week, which beats free flow.
    public func weights(now: Date) -> (weights: [UInt32], liveArcs: Int, firstExpiry: Date?) {
        var weights = self.weights(slot: map.learned.slot(of: now))
        let live = map.traffic.freshSpeeds(now: now)
        guard !live.isEmpty else { return (weights, 0, nil) }
        var liveArcs = 0
        for arc in 0..<map.graph.arcCount {
            guard let observation = live[canonical[arc]] else { continue }
            weights[arc] = RoadGraph.timeWeight(seconds: observation.seconds(over: Double(map.graph.arcDistanceM[arc])))
            liveArcs += 1
        }
        let oldest = live.values.map(\.observedAt).min()
        return (weights, liveArcs, oldest?.addingTimeInterval(map.traffic.expiry))
    }

    /// The weights of a quarter hour without live speeds: learned speeds for its slot, else free flow. A departure
    /// later than live speeds reach is routed on these.
    func weights(slot: WeekSlot) -> [UInt32] {
        var weights = map.weights[.time] ?? map.graph.weights(.time)
        guard !map.learned.isEmpty else { return weights }
        let learned = map.learned.speeds(slot: slot, arcs: canonical)
        for arc in 0..<map.graph.arcCount {
            guard let speed = learned[arc] else { continue }
            weights[arc] = RoadGraph.timeWeight(seconds: Double(map.graph.arcDistanceM[arc]) / speed)
        }
        return weights
    }

    /// Customises for the speeds known `now` and installs the result; returns it.
    @discardableResult
    public func customise(now: Date) -> RoutingSnapshot {
        let revisions = (map.traffic.revision, map.learned.revision)
        let slot = map.learned.slot(of: now)
        let (weights, liveArcs, firstExpiry) = self.weights(now: now)
        let snapshot = RoutingSnapshot(
            metric: .time, hierarchy: hierarchy(weights), weights: weights, liveArcs: liveArcs)
        map.install(snapshot)
        installed.withLock {
            $0 = Installed(live: revisions.0, learned: revisions.1, slot: slot, firstExpiry: firstExpiry)
        }
        return snapshot
    }

    /// Customises only when something changed since the last time: new observations, a live speed in use that has
    /// expired, or a new quarter hour of learned speeds. Nil when nothing needed doing.
    public func customiseIfChanged(now: Date) -> RoutingSnapshot? {
        let last = installed.withLock { $0 }
        let expired = last.firstExpiry.map { now >= $0 } ?? false
        // A new quarter hour changes the weights only where something was learned.
        let changed =
            map.traffic.revision != last.live || map.learned.revision != last.learned
            || (map.learned.slot(of: now) != last.slot && !map.learned.isEmpty)
        guard changed || expired else { return nil }
        return customise(now: now)
    }

    /// Search data for a departure at `date`, past the reach of live speeds: customised for the learned speeds of
    /// its quarter hour, and kept for a minute per slot. Nil where customising per request would be too slow (the
    /// re-contraction method): such departures are routed on the current weights and only timed by slot.
    public func departureSnapshot(at date: Date, now: Date) -> RoutingSnapshot? {
        guard structure != nil else { return nil }
        let slot = map.learned.slot(of: date)
        let revision = map.learned.revision
        if let kept = departures.withLock({ $0[slot] }),
            kept.revision == revision || now.timeIntervalSince(kept.madeAt) < 60
        {
            return kept.snapshot
        }
        let weights = self.weights(slot: slot)
        let snapshot = RoutingSnapshot(metric: .time, hierarchy: hierarchy(weights), weights: weights)
        departures.withLock { kept in
            if kept.count >= 16, let oldest = kept.min(by: { $0.value.madeAt < $1.value.madeAt }) {
                kept[oldest.key] = nil
            }
            kept[slot] = Departure(snapshot: snapshot, revision: revision, madeAt: now)
        }
        return snapshot
    }

    /// Forgets departure data made more than `age` ago: each is a whole customised hierarchy, and one busy minute of
    /// `departAt` requests kept up to 16 for as long as the server ran.
    @discardableResult
    public func forgetDepartures(now: Date, age: TimeInterval = 600) -> Int {
        departures.withLock { kept in
            let before = kept.count
            kept = kept.filter { now.timeIntervalSince($0.value.madeAt) < age }
            return before - kept.count
        }
    }

    private func hierarchy(_ weights: [UInt32]) -> ContractionHierarchy {
        structure?.customise(weights: weights, metric: .time)
            ?? ContractionHierarchy.build(
                graph: map.graph, weights: weights, ranks: ranks, metric: .time, reorderedTop: reorderedTop)
    }
}
