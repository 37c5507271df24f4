import Foundation
import Synchronization

/// Names road segments by the OSM nodes at their ends, as speed feeds and stored learned speeds do: such a name
/// outlives a re-import of the map and means the same segment to every instance.
public final class OSMSegments: Sendable {
    private struct Pair: Hashable {
        var from: Int64
        var to: Int64
    }

    private let graph: RoadGraph
    /// Built on first use: most servers never look a segment up by its OSM nodes.
    private let arcsByPair = Mutex<[Pair: Int32]?>(nil)

    public init(graph: RoadGraph) { self.graph = graph }

    /// The arc from one OSM node to the other (of an original node, not a restriction copy), if the map has one.
    public func arc(fromOSMNode from: Int64, toOSMNode to: Int64) -> Int? {
        arcsByPair.withLock { cached in
            if cached == nil { cached = Self.index(graph) }
            return cached![Pair(from: from, to: to)].map(Int.init)
        }
    }

    /// The OSM nodes at the ends of an arc.
    public func osmNodes(ofArc arc: Int) -> (from: Int64, to: Int64) {
        (graph.osmNodeId[Int(graph.sourceNode(ofArc: arc))], graph.osmNodeId[Int(graph.arcTarget[arc])])
    }

    private static func index(_ graph: RoadGraph) -> [Pair: Int32] {
        var index: [Pair: Int32] = [:]
        index.reserveCapacity(graph.arcCount)
        for node in 0..<Int32(graph.nodeCount) where graph.originalNode[Int(node)] == node {
            for arc in graph.arcs(from: node) {
                let pair = Pair(from: graph.osmNodeId[Int(node)], to: graph.osmNodeId[Int(graph.arcTarget[arc])])
                // Two ways between the same nodes: the first one stands for both.
                if index[pair] == nil { index[pair] = Int32(arc) }
            }
        }
        return index
    }
}
