import Foundation
import LogisticsCore
import Synchronization

/// Everything needed to answer route queries on one map and profile: the graph, a contraction hierarchy per
/// metric, the snapping index and the live speeds. Immutable apart from the traffic and the routing snapshots that
/// live speeds are customised into, so one instance serves all requests concurrently.
public final class RoadMap: Sendable {
    public let graph: RoadGraph
    /// The hierarchies for the profile's free-flow speeds, as prepared (and saved in the map file).
    public let hierarchies: [RouteMetric: ContractionHierarchy]
    /// The integer weights the hierarchies were built with, to cost partial segments the same way.
    public let weights: [RouteMetric: [UInt32]]
    public let index: SegmentIndex
    public let traffic: LiveTraffic
    /// Speeds per segment and quarter hour of the week, learned from the fleet.
    public let learned: LearnedSpeeds
    /// Segments by the OSM nodes at their ends, as speed feeds and stored learned speeds name them.
    public let segments: OSMSegments
    /// Restriction copies of each `via` node: a route that ends at the node may arrive at any of them.
    let copies: [Int32: [Int32]]
    /// What queries search now, per metric: the prepared hierarchies until live speeds are customised in.
    private let snapshots: Mutex<[RouteMetric: RoutingSnapshot]>

    public init(graph: RoadGraph, hierarchies: [RouteMetric: ContractionHierarchy], trafficExpiry: TimeInterval = 600) {
        self.graph = graph
        self.hierarchies = hierarchies
        let weights = Dictionary(uniqueKeysWithValues: hierarchies.keys.map { ($0, graph.weights($0)) })
        self.weights = weights
        self.snapshots = Mutex(
            hierarchies.mapValues { RoutingSnapshot(metric: $0.metric, hierarchy: $0, weights: weights[$0.metric]!) })
        let index = SegmentIndex(graph: graph)
        self.index = index
        self.traffic = LiveTraffic(graph: graph, index: index, expiry: trafficExpiry)
        let segments = OSMSegments(graph: graph)
        self.segments = segments
        self.learned = LearnedSpeeds(graph: graph, segments: segments)
        var copies: [Int32: [Int32]] = [:]
        for node in 0..<Int32(graph.nodeCount) where graph.originalNode[Int(node)] != node {
            copies[graph.originalNode[Int(node)], default: []].append(node)
        }
        self.copies = copies
    }

    /// Prepares a map: contracts the graph for both metrics.
    public static func prepare(
        graph: RoadGraph, progress: (RouteMetric, Double) -> Void = { _, _ in }
    ) -> RoadMap {
        var hierarchies: [RouteMetric: ContractionHierarchy] = [:]
        for metric in RouteMetric.allCases {
            hierarchies[metric] = ContractionHierarchy.build(graph: graph, metric: metric) { progress(metric, $0) }
        }
        return RoadMap(graph: graph, hierarchies: hierarchies)
    }

    public var profile: RoutingProfile.Name { graph.profile }

    /// The search data queries should use for `metric` now; nil when that metric is not loaded.
    public func snapshot(_ metric: RouteMetric) -> RoutingSnapshot? { snapshots.withLock { $0[metric] } }

    /// Swaps in new search data for its metric, whole: running queries finish on the snapshot they took.
    public func install(_ snapshot: RoutingSnapshot) { snapshots.withLock { $0[snapshot.metric] = snapshot } }

    /// Learns from one of the fleet's fixes: the live speed of the segment driven, and its speed at this time of the
    /// week. Returns the arc the fix was matched to, or nil when it says nothing about traffic.
    @discardableResult
    public func observe(position: GeoPoint, speedMps: Double?, headingDeg: Double?, recordedAt: Date) -> Int? {
        guard
            let arc = traffic.record(
                position: position, speedMps: speedMps, headingDeg: headingDeg, recordedAt: recordedAt),
            let speedMps
        else { return nil }
        learned.record(arc: arc, metresPerSecond: speedMps, at: recordedAt)
        return arc
    }

    public var memoryBytes: Int { graph.memoryBytes + hierarchies.values.reduce(0) { $0 + $1.memoryBytes } }

    /// The arc from the original node that a restriction copy's arc duplicates (traffic is kept on originals).
    func canonicalArc(_ arc: Int) -> Int {
        canonicalArc(arc, source: graph.sourceNode(ofArc: arc))
    }

    /// The same, for an arc whose tail the caller already knows.
    func canonicalArc(_ arc: Int, source: Int32) -> Int {
        let original = graph.originalNode[Int(source)]
        guard original != source else { return arc }
        return graph.arcs(
            from: original, toward: graph.originalNode[Int(graph.arcTarget[arc])], along: graph.arcWay[arc]
        )
        .first ?? arc
    }
}
