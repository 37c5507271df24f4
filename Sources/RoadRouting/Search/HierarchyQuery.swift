/// A bidirectional upward search in a contraction hierarchy, from source seeds and target seeds at once.
/// The search state lives in small hash tables (`NodeTable`): a query touches a few hundred nodes, so nothing graph-sized is allocated
/// and any number of queries can run in parallel on the shared, immutable hierarchy.
public struct HierarchyQuery: Sendable {
    public let hierarchy: ContractionHierarchy

    public init(hierarchy: ContractionHierarchy) { self.hierarchy = hierarchy }

    private struct Label {
        var cost: UInt64
        /// The node this one was reached from and the edge index used; -1 for a seed.
        var parent: Int32
        var edge: Int32
    }

    public func shortestPath(from sources: [SearchSeed], to targets: [SearchSeed]) -> SearchPath? {
        var forward = NodeTable<Label>()
        var backward = NodeTable<Label>()
        var forwardHeap = MinHeap<UInt64>()
        var backwardHeap = MinHeap<UInt64>()
        for seed in sources where seed.cost < forward[seed.node]?.cost ?? .max {
            forward[seed.node] = Label(cost: seed.cost, parent: -1, edge: -1)
            forwardHeap.push(seed.cost, seed.node)
        }
        for seed in targets where seed.cost < backward[seed.node]?.cost ?? .max {
            backward[seed.node] = Label(cost: seed.cost, parent: -1, edge: -1)
            backwardHeap.push(seed.cost, seed.node)
        }
        var best: UInt64 = .max
        var meeting: Int32 = -1
        while true {
            let forwardMin = forwardHeap.minimumKey ?? .max
            let backwardMin = backwardHeap.minimumKey ?? .max
            guard min(forwardMin, backwardMin) < best else { break }
            let isForward = forwardMin <= backwardMin
            if isForward {
                settle(
                    heap: &forwardHeap, labels: &forward, other: backward, first: hierarchy.forwardFirst,
                    edges: hierarchy.forwardEdges, downFirst: hierarchy.backwardFirst,
                    downEdges: hierarchy.backwardEdges, best: &best, meeting: &meeting)
            } else {
                settle(
                    heap: &backwardHeap, labels: &backward, other: forward, first: hierarchy.backwardFirst,
                    edges: hierarchy.backwardEdges, downFirst: hierarchy.forwardFirst,
                    downEdges: hierarchy.forwardEdges, best: &best, meeting: &meeting)
            }
        }
        guard meeting >= 0 else { return nil }
        var arcs: [Int] = []
        // Upward half: from the meeting node back to a source seed, unpacked in reverse.
        var upward: [(edge: Int32, from: Int32)] = []
        var node = meeting
        while let label = forward[node], label.parent >= 0 {
            upward.append((label.edge, label.parent))
            node = label.parent
        }
        let sourceNode = node
        for step in upward.reversed() {
            unpack(hierarchy.forwardEdges[Int(step.edge)], from: step.from, into: &arcs)
        }
        node = meeting
        while let label = backward[node], label.parent >= 0 {
            // A backward edge stored at `parent` means the graph edge `node → parent`.
            let edge = hierarchy.backwardEdges[Int(label.edge)]
            unpack(
                ContractionHierarchy.Edge(other: label.parent, weight: edge.weight, via: edge.via), from: node,
                into: &arcs)
            node = label.parent
        }
        return SearchPath(cost: best, arcs: arcs, sourceNode: sourceNode, targetNode: node)
    }

    /// Settles the next node of one direction. Stall on demand: a node that a higher node already reached by
    /// this search reaches more cheaply (through one of the node's edges from above) is not on a shortest path
    /// up, so its edges are not relaxed; its label still counts for meeting the other search.
    private func settle(
        heap: inout MinHeap<UInt64>, labels: inout NodeTable<Label>, other: NodeTable<Label>, first: [Int32],
        edges: [ContractionHierarchy.Edge], downFirst: [Int32], downEdges: [ContractionHierarchy.Edge],
        best: inout UInt64, meeting: inout Int32
    ) {
        guard let (key, node) = heap.pop(), let label = labels[node], key == label.cost else { return }
        if let opposite = other[node], key + opposite.cost < best {
            best = key + opposite.cost
            meeting = node
        }
        for index in Int(downFirst[Int(node)])..<Int(downFirst[Int(node) + 1]) {
            let edge = downEdges[index]
            if let higher = labels[edge.other], higher.cost + UInt64(edge.weight) < key { return }
        }
        for index in Int(first[Int(node)])..<Int(first[Int(node) + 1]) {
            let edge = edges[index]
            let candidate = key + UInt64(edge.weight)
            if candidate < labels[edge.other]?.cost ?? .max {
                labels[edge.other] = Label(cost: candidate, parent: node, edge: Int32(index))
                heap.push(candidate, edge.other)
            }
        }
    }

    /// Appends the original arcs of the graph edge `from → edge.other`, expanding shortcuts recursively.
    private func unpack(_ edge: ContractionHierarchy.Edge, from source: Int32, into arcs: inout [Int]) {
        if edge.via < 0 {
            arcs.append(Int(-(edge.via + 1)))
            return
        }
        let middle = edge.via
        // `source → middle` is stored at the middle node (the lower one) among its backward edges,
        // `middle → target` among its forward edges.
        let down = lowerEdge(at: middle, other: source, first: hierarchy.backwardFirst, edges: hierarchy.backwardEdges)
        let up = lowerEdge(at: middle, other: edge.other, first: hierarchy.forwardFirst, edges: hierarchy.forwardEdges)
        unpack(ContractionHierarchy.Edge(other: middle, weight: down.weight, via: down.via), from: source, into: &arcs)
        unpack(up, from: middle, into: &arcs)
    }

    private func lowerEdge(
        at node: Int32, other: Int32, first: [Int32], edges: [ContractionHierarchy.Edge]
    ) -> ContractionHierarchy.Edge {
        var found: ContractionHierarchy.Edge?
        for index in Int(first[Int(node)])..<Int(first[Int(node) + 1]) where edges[index].other == other {
            if found == nil || edges[index].weight < found!.weight { found = edges[index] }
        }
        // The contraction stored both halves of every shortcut when it created it.
        return found!
    }
}
