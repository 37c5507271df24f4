import Foundation
import Synchronization

/// Puts live speeds into route choice: turns the fresh observations of a map's `LiveTraffic` into arc weights,
/// customises a hierarchy for them in the prepared hierarchy's contraction order, and swaps it in for the fastest
/// routes (travel matrices included) in one step.
///
/// The order is the expensive part of a contraction and is kept. Two ways reuse it:
/// - triangles: a customisable hierarchy in that order (`CustomisableHierarchy`), when its shortcut structure
///   stays small, as on real street networks (Monaco: 40,000 edges, a customisation in milliseconds);
/// - re-contraction: witness searches again, in the same order, when the structure would be too large without them
///   (grids: every node has many equal alternatives, and the structure grows without bound).
public final class TrafficCustomiser: Sendable {
    public enum Method: String, Sendable {
        case triangles
        case recontraction
    }

    public let map: RoadMap
    public let method: Method
    private let structure: CustomisableHierarchy?
    private let ranks: [Int32]
    /// Per arc: the arc on the original node whose live speed it shares (restriction copies repeat arcs).
    private let canonical: [Int32]
    /// The traffic revision the installed snapshot was customised from, and when its first live speed expires.
    private let installed = Mutex<(revision: Int, firstExpiry: Date?)>((0, nil))

    /// The customisable structure's size, for the triangle method.
    public var structureEdges: Int? { structure?.edgeCount }
    public var structureBytes: Int { structure?.memoryBytes ?? ranks.count * 4 }

    /// Nil when the map has no hierarchy for the fastest routes. Costs one structure build: call it off the
    /// cooperative pool.
    public init?(map: RoadMap) {
        guard let prepared = map.hierarchies[.time] else { return nil }
        self.map = map
        ranks = HierarchyOrder.ranks(of: prepared)
        // Twice the prepared hierarchy's edges: real street maps measured here need 0.7–1.2 times.
        let limit = 2 * (prepared.forwardEdges.count + prepared.backwardEdges.count)
        structure = CustomisableHierarchy(graph: map.graph, ranks: ranks, edgeLimit: limit)
        method = structure == nil ? .recontraction : .triangles
        canonical = (0..<map.graph.arcCount).map { Int32(map.canonicalArc($0)) }
    }

    /// The fastest-route weight of every arc now: from a fresh live speed where there is one, else free flow.
    public func weights(now: Date) -> (weights: [UInt32], liveArcs: Int, firstExpiry: Date?) {
        let graph = map.graph
        let live = map.traffic.freshSpeeds(now: now)
        var weights = map.weights[.time] ?? graph.weights(.time)
        var liveArcs = 0
        guard !live.isEmpty else { return (weights, 0, nil) }
        for arc in 0..<graph.arcCount {
            guard let observation = live[canonical[arc]] else { continue }
            weights[arc] = RoadGraph.timeWeight(seconds: observation.seconds(over: Double(graph.arcDistanceM[arc])))
            liveArcs += 1
        }
        let oldest = live.values.map(\.observedAt).min()
        return (weights, liveArcs, oldest?.addingTimeInterval(map.traffic.expiry))
    }

    /// Customises for the speeds known `now` and installs the result; returns it.
    @discardableResult
    public func customise(now: Date) -> RoutingSnapshot {
        let revision = map.traffic.revision
        let (weights, liveArcs, firstExpiry) = self.weights(now: now)
        let hierarchy =
            structure?.customise(weights: weights, metric: .time)
            ?? ContractionHierarchy.build(graph: map.graph, weights: weights, ranks: ranks, metric: .time)
        let snapshot = RoutingSnapshot(
            metric: .time, hierarchy: hierarchy, weights: weights, liveArcs: liveArcs)
        map.install(snapshot)
        installed.withLock { $0 = (revision, firstExpiry) }
        return snapshot
    }

    /// Customises only when something changed since the last time: new observations, or a live speed in use that
    /// has expired. Nil when nothing needed doing.
    public func customiseIfChanged(now: Date) -> RoutingSnapshot? {
        let last = installed.withLock { $0 }
        let expired = last.firstExpiry.map { now >= $0 } ?? false
        guard map.traffic.revision != last.revision || expired else { return nil }
        return customise(now: now)
    }
}
