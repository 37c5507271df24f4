import Foundation
import Synchronization

/// Everything needed to answer route queries on one map and profile: the graph, a contraction hierarchy per
/// metric, the snapping index and the live speeds. Immutable apart from the traffic, so one instance serves all
/// requests concurrently.
public final class RoadMap: Sendable {
    public let graph: RoadGraph
    public let hierarchies: [RouteMetric: ContractionHierarchy]
    /// The integer weights the hierarchies were built with, to cost partial segments the same way.
    public let weights: [RouteMetric: [UInt32]]
    public let index: SegmentIndex
    public let traffic: LiveTraffic
    /// Restriction copies of each `via` node: a route that ends at the node may arrive at any of them.
    let copies: [Int32: [Int32]]
    /// Edge lengths per hierarchy, worked out on the first travel matrix (most servers never ask for one).
    private let lengthCache = Mutex<[RouteMetric: HierarchyLengths]>([:])

    public init(graph: RoadGraph, hierarchies: [RouteMetric: ContractionHierarchy], trafficExpiry: TimeInterval = 600) {
        self.graph = graph
        self.hierarchies = hierarchies
        self.weights = Dictionary(uniqueKeysWithValues: hierarchies.keys.map { ($0, graph.weights($0)) })
        let index = SegmentIndex(graph: graph)
        self.index = index
        self.traffic = LiveTraffic(graph: graph, index: index, expiry: trafficExpiry)
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

    /// The lengths of `metric`'s hierarchy edges, for travel matrices; nil when that hierarchy is not loaded.
    public func lengths(_ metric: RouteMetric) -> HierarchyLengths? {
        guard let hierarchy = hierarchies[metric] else { return nil }
        return lengthCache.withLock { cache in
            if let known = cache[metric] { return known }
            let lengths = HierarchyLengths(hierarchy: hierarchy, graph: graph)
            cache[metric] = lengths
            return lengths
        }
    }

    public var memoryBytes: Int { graph.memoryBytes + hierarchies.values.reduce(0) { $0 + $1.memoryBytes } }

    /// The arc from the original node that a restriction copy's arc duplicates (traffic is kept on originals).
    func canonicalArc(_ arc: Int) -> Int {
        let source = graph.sourceNode(ofArc: arc)
        let original = graph.originalNode[Int(source)]
        guard original != source else { return arc }
        return graph.arcs(
            from: original, toward: graph.originalNode[Int(graph.arcTarget[arc])], along: graph.arcWay[arc]
        )
        .first ?? arc
    }
}
