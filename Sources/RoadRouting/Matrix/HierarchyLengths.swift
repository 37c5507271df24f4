/// The length in metres of every edge of a contraction hierarchy, shortcuts included. A many-to-many search adds
/// these up beside the costs, so a travel matrix reports the distance of each fastest path without unpacking it.
public struct HierarchyLengths: Sendable {
    /// Parallel to `ContractionHierarchy.forwardEdges` and `backwardEdges`.
    public let forward: [Float]
    public let backward: [Float]

    public init(hierarchy: ContractionHierarchy, graph: RoadGraph) {
        var unpacker = Unpacker(hierarchy: hierarchy, graph: graph)
        for index in hierarchy.forwardEdges.indices { _ = unpacker.forwardLength(index) }
        for index in hierarchy.backwardEdges.indices { _ = unpacker.backwardLength(index) }
        forward = unpacker.forward
        backward = unpacker.backward
    }

    /// Memoised unpacking: a shortcut `a → b` via `m` is `a → m` (stored at `m` among its backward edges, as the
    /// hierarchy's own unpacking finds it) plus `m → b` (at `m` among its forward edges).
    private struct Unpacker {
        let hierarchy: ContractionHierarchy
        let graph: RoadGraph
        var forward: [Float]
        var backward: [Float]
        /// The row each edge is stored in: forward edges leave it, backward edges arrive at it.
        let forwardRow: [Int32]
        let backwardRow: [Int32]

        init(hierarchy: ContractionHierarchy, graph: RoadGraph) {
            self.hierarchy = hierarchy
            self.graph = graph
            forward = Array(repeating: -1, count: hierarchy.forwardEdges.count)
            backward = Array(repeating: -1, count: hierarchy.backwardEdges.count)
            forwardRow = Self.rows(hierarchy.forwardFirst, count: hierarchy.forwardEdges.count)
            backwardRow = Self.rows(hierarchy.backwardFirst, count: hierarchy.backwardEdges.count)
        }

        static func rows(_ first: [Int32], count: Int) -> [Int32] {
            var rows = [Int32](repeating: 0, count: count)
            for node in 0..<(first.count - 1) {
                for index in Int(first[node])..<Int(first[node + 1]) { rows[index] = Int32(node) }
            }
            return rows
        }

        /// Forward edge `row → other`.
        mutating func forwardLength(_ index: Int) -> Float {
            if forward[index] >= 0 { return forward[index] }
            let edge = hierarchy.forwardEdges[index]
            let length = span(from: forwardRow[index], to: edge.other, via: edge.via)
            forward[index] = length
            return length
        }

        /// Backward edge stored at `row`: the graph edge `other → row`.
        mutating func backwardLength(_ index: Int) -> Float {
            if backward[index] >= 0 { return backward[index] }
            let edge = hierarchy.backwardEdges[index]
            let length = span(from: edge.other, to: backwardRow[index], via: edge.via)
            backward[index] = length
            return length
        }

        private mutating func span(from source: Int32, to target: Int32, via: Int32) -> Float {
            if via < 0 { return graph.arcDistanceM[Int(-(via + 1))] }
            let down = lowest(at: via, other: source, first: hierarchy.backwardFirst, edges: hierarchy.backwardEdges)
            let up = lowest(at: via, other: target, first: hierarchy.forwardFirst, edges: hierarchy.forwardEdges)
            return backwardLength(down) + forwardLength(up)
        }

        /// The cheapest edge of `node`'s row towards `other`: the one the shortcut was made of.
        private func lowest(
            at node: Int32, other: Int32, first: [Int32], edges: [ContractionHierarchy.Edge]
        ) -> Int {
            var found = -1
            for index in Int(first[Int(node)])..<Int(first[Int(node) + 1]) where edges[index].other == other {
                if found < 0 || edges[index].weight < edges[found].weight { found = index }
            }
            // The contraction stored both halves of every shortcut when it created it.
            precondition(found >= 0, "a shortcut's half is missing from the hierarchy")
            return found
        }
    }
}
