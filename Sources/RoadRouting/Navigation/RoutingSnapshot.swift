import Foundation
import Synchronization

/// One metric's search data at one moment: a hierarchy and the arc weights it was built from. A query takes one
/// snapshot and uses it throughout, so weights swapped in meanwhile never mix with the ones it started on.
public final class RoutingSnapshot: Sendable {
    public let metric: RouteMetric
    public let hierarchy: ContractionHierarchy
    /// The integer weights of every arc, to cost partial segments the way the hierarchy does.
    public let weights: [UInt32]
    /// Arcs whose weight came from a live speed.
    public let liveArcs: Int
    /// Edge lengths for travel matrices, worked out on the first matrix (most servers never ask for one).
    private let lengthCache = Mutex<HierarchyLengths?>(nil)

    public init(metric: RouteMetric, hierarchy: ContractionHierarchy, weights: [UInt32], liveArcs: Int = 0) {
        self.metric = metric
        self.hierarchy = hierarchy
        self.weights = weights
        self.liveArcs = liveArcs
    }

    public func lengths(graph: RoadGraph) -> HierarchyLengths {
        lengthCache.withLock { cache in
            if let cache { return cache }
            let lengths = HierarchyLengths(hierarchy: hierarchy, graph: graph)
            cache = lengths
            return lengths
        }
    }
}
