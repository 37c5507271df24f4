/// The order of an existing contraction hierarchy, recovered from its edges: every edge runs from the node
/// contracted earlier to the one contracted later, so any topological order of the upward graph is an order the
/// contraction could have used. Nodes are taken level by level (Kahn's algorithm, first in first out).
public enum HierarchyOrder {
    public static func ranks(of hierarchy: ContractionHierarchy) -> [Int32] {
        let count = hierarchy.forwardFirst.count - 1
        var pending = [Int32](repeating: 0, count: count)
        for edge in hierarchy.forwardEdges { pending[Int(edge.other)] += 1 }
        for edge in hierarchy.backwardEdges { pending[Int(edge.other)] += 1 }
        var queue = (0..<Int32(count)).filter { pending[Int($0)] == 0 }
        queue.reserveCapacity(count)
        func release(_ node: Int, first: [Int32], edges: [ContractionHierarchy.Edge]) {
            for index in Int(first[node])..<Int(first[node + 1]) {
                let other = Int(edges[index].other)
                pending[other] -= 1
                if pending[other] == 0 { queue.append(Int32(other)) }
            }
        }
        var head = 0
        while head < queue.count {
            let node = Int(queue[head])
            head += 1
            release(node, first: hierarchy.forwardFirst, edges: hierarchy.forwardEdges)
            release(node, first: hierarchy.backwardFirst, edges: hierarchy.backwardEdges)
        }
        var ranks = [Int32](repeating: 0, count: count)
        for (rank, node) in queue.enumerated() { ranks[Int(node)] = Int32(rank) }
        return ranks
    }
}
