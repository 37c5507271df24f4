/// Contraction hierarchies (Geisberger et al., 2008): nodes are contracted one by one, least important first;
/// shortcuts keep shortest-path distances among the remaining nodes. A query then searches upward only, from
/// both ends, and touches a few hundred nodes instead of the whole graph.
public struct ContractionHierarchy: Sendable {
    /// An edge of the upward graphs. `via` ≥ 0 is the node a shortcut skips; a negative `via` encodes the
    /// original arc `-(via + 1)`, so paths unpack to real arcs with names and geometry.
    public struct Edge: Sendable, Equatable, BitwiseCopyable {
        public var other: Int32
        public var weight: UInt32
        public var via: Int32
    }

    public let metric: RouteMetric
    /// Upward edges `node → other` (forward search) in compressed rows.
    public var forwardFirst: [Int32]
    public var forwardEdges: [Edge]
    /// Upward edges stored at their lower end: `other → node` in the graph, walked backwards by the target search.
    public var backwardFirst: [Int32]
    public var backwardEdges: [Edge]

    public var shortcutCount: Int { forwardEdges.count { $0.via >= 0 } + backwardEdges.count { $0.via >= 0 } }

    public var memoryBytes: Int {
        (forwardFirst.count + backwardFirst.count) * 4 + (forwardEdges.count + backwardEdges.count) * 12
    }

    public init(
        metric: RouteMetric, forwardFirst: [Int32], forwardEdges: [Edge], backwardFirst: [Int32],
        backwardEdges: [Edge]
    ) {
        self.metric = metric
        self.forwardFirst = forwardFirst
        self.forwardEdges = forwardEdges
        self.backwardFirst = backwardFirst
        self.backwardEdges = backwardEdges
    }

    /// Contracts the whole graph. `progress` gets the fraction of nodes contracted.
    public static func build(
        graph: RoadGraph, metric: RouteMetric, progress: (Double) -> Void = { _ in }
    ) -> ContractionHierarchy {
        var contractor = Contractor(graph: graph, weights: graph.weights(metric))
        return contractor.run(metric: metric, progress: progress)
    }

    /// Contracts in a known order (`ranks[node]`, 0 first), as when only the weights changed: no priorities to
    /// compute, one witness search per contracted node.
    ///
    /// `reorderedTop` is the share of the order, its most important end, that is ordered again for these weights,
    /// by the priorities of a full contraction (updated lazily only, when a node comes up). Queries spend their
    /// time among those nodes: on a large grid with a tenth of the arcs jammed, re-ordering the top 1 % brought
    /// query times markedly closer to the static hierarchy's, for a little more contraction time.
    public static func build(
        graph: RoadGraph, weights: [UInt32], ranks: [Int32], metric: RouteMetric, reorderedTop: Double = 0
    ) -> ContractionHierarchy {
        var contractor = Contractor(graph: graph, weights: weights)
        return contractor.run(ranks: ranks, reorderedTop: reorderedTop, metric: metric)
    }
}

/// The mutable state of one contraction run.
private struct Contractor {
    typealias Edge = ContractionHierarchy.Edge

    let nodeCount: Int
    var outEdges: [[Edge]]
    var inEdges: [[Edge]]
    var contracted: [Bool]
    var deletedNeighbours: [Int32]
    var level: [Int32]
    var witness: WitnessSearch

    init(graph: RoadGraph, weights: [UInt32]) {
        nodeCount = graph.nodeCount
        outEdges = Array(repeating: [], count: nodeCount)
        inEdges = Array(repeating: [], count: nodeCount)
        contracted = Array(repeating: false, count: nodeCount)
        deletedNeighbours = Array(repeating: 0, count: nodeCount)
        level = Array(repeating: 0, count: nodeCount)
        witness = WitnessSearch(nodeCount: nodeCount)
        for node in 0..<Int32(nodeCount) {
            for arc in graph.arcs(from: node) {
                let target = graph.arcTarget[arc]
                guard target != node else { continue }
                let edge = Edge(other: target, weight: weights[arc], via: -Int32(arc) - 1)
                if let existing = outEdges[Int(node)].firstIndex(where: { $0.other == target }) {
                    // Parallel arcs: only the cheapest matters to any shortest path.
                    guard edge.weight < outEdges[Int(node)][existing].weight else { continue }
                    outEdges[Int(node)][existing] = edge
                    let reverse = inEdges[Int(target)].firstIndex { $0.other == node }!
                    inEdges[Int(target)][reverse] = Edge(other: node, weight: edge.weight, via: edge.via)
                } else {
                    outEdges[Int(node)].append(edge)
                    inEdges[Int(target)].append(Edge(other: node, weight: edge.weight, via: edge.via))
                }
            }
        }
    }

    mutating func run(metric: RouteMetric, progress: (Double) -> Void) -> ContractionHierarchy {
        var forwardUp = [[Edge]](repeating: [], count: nodeCount)
        var backwardUp = [[Edge]](repeating: [], count: nodeCount)
        contractByPriority(
            Array(0..<Int32(nodeCount)), updatingNeighbours: true, forwardUp: &forwardUp, backwardUp: &backwardUp,
            progress: progress)
        progress(1)
        return Self.hierarchy(forwardUp: forwardUp, backwardUp: backwardUp, metric: metric)
    }

    mutating func run(ranks: [Int32], reorderedTop: Double, metric: RouteMetric) -> ContractionHierarchy {
        var order = [Int32](repeating: 0, count: nodeCount)
        for node in 0..<nodeCount { order[Int(ranks[node])] = Int32(node) }
        let kept = nodeCount - Int((Double(nodeCount) * min(max(reorderedTop, 0), 1)).rounded())
        var forwardUp = [[Edge]](repeating: [], count: nodeCount)
        var backwardUp = [[Edge]](repeating: [], count: nodeCount)
        for node in order.prefix(kept) {
            forwardUp[Int(node)] = outEdges[Int(node)]
            backwardUp[Int(node)] = inEdges[Int(node)]
            if kept == nodeCount {
                remove(node)
            } else {
                for neighbour in contract(node) { noteContracted(node, beside: neighbour) }
            }
        }
        // Neighbours' priorities are not recomputed after each contraction: that is most of a full contraction's
        // time, and the lazy check when a node comes up kept nearly all of the benefit.
        contractByPriority(
            Array(order.dropFirst(kept)), updatingNeighbours: false, forwardUp: &forwardUp, backwardUp: &backwardUp,
            progress: { _ in })
        return Self.hierarchy(forwardUp: forwardUp, backwardUp: backwardUp, metric: metric)
    }

    /// Contracts `nodes`, least important first by edge difference, deleted neighbours and level.
    mutating func contractByPriority(
        _ nodes: [Int32], updatingNeighbours: Bool, forwardUp: inout [[Edge]], backwardUp: inout [[Edge]],
        progress: (Double) -> Void
    ) {
        var queue = MinHeap<Int64>()
        var priority = [Int64](repeating: 0, count: nodeCount)
        for node in nodes {
            priority[Int(node)] = computePriority(node)
            queue.push(priority[Int(node)], node)
        }
        var done = 0
        let step = max(1, nodes.count / 100)
        while let (key, node) = queue.pop() {
            guard !contracted[Int(node)], key == priority[Int(node)] else { continue }
            // Lazy update: the priority may have grown since it was queued.
            let fresh = computePriority(node)
            if let next = queue.minimumKey, fresh > next {
                priority[Int(node)] = fresh
                queue.push(fresh, node)
                continue
            }
            forwardUp[Int(node)] = outEdges[Int(node)]
            backwardUp[Int(node)] = inEdges[Int(node)]
            for neighbour in contract(node) {
                noteContracted(node, beside: neighbour)
                guard updatingNeighbours else { continue }
                let updated = computePriority(neighbour)
                if updated != priority[Int(neighbour)] {
                    priority[Int(neighbour)] = updated
                    queue.push(updated, neighbour)
                }
            }
            done += 1
            if done % step == 0 { progress(Double(done) / Double(nodes.count)) }
        }
    }

    /// What the priority of a node remembers of its contracted neighbours.
    mutating func noteContracted(_ node: Int32, beside neighbour: Int32) {
        deletedNeighbours[Int(neighbour)] += 1
        level[Int(neighbour)] = max(level[Int(neighbour)], level[Int(node)] + 1)
    }

    /// Each node's upward edges, as kept when it was contracted, in compressed rows.
    static func hierarchy(forwardUp: [[Edge]], backwardUp: [[Edge]], metric: RouteMetric) -> ContractionHierarchy {
        let (forwardFirst, forwardEdges) = flatten(forwardUp)
        let (backwardFirst, backwardEdges) = flatten(backwardUp)
        return ContractionHierarchy(
            metric: metric, forwardFirst: forwardFirst, forwardEdges: forwardEdges, backwardFirst: backwardFirst,
            backwardEdges: backwardEdges)
    }

    static func flatten(_ rows: [[Edge]]) -> ([Int32], [Edge]) {
        var first = [Int32](repeating: 0, count: rows.count + 1)
        var edges: [Edge] = []
        edges.reserveCapacity(rows.reduce(0) { $0 + $1.count })
        for (node, row) in rows.enumerated() {
            edges.append(contentsOf: row)
            first[node + 1] = Int32(edges.count)
        }
        return (first, edges)
    }

    /// Edge difference, deleted neighbours and level: the usual mix that keeps the hierarchy shallow and sparse.
    mutating func computePriority(_ node: Int32) -> Int64 {
        let shortcuts = shortcutsNeeded(node, settleLimit: 50, apply: false)
        let degree = inEdges[Int(node)].count + outEdges[Int(node)].count
        return Int64(4 * (shortcuts - degree)) + Int64(2 * deletedNeighbours[Int(node)]) + Int64(level[Int(node)])
    }

    /// Removes `node`, adds the shortcuts it requires, and returns its remaining neighbours.
    mutating func contract(_ node: Int32) -> [Int32] {
        let neighbours = Set(inEdges[Int(node)].map(\.other) + outEdges[Int(node)].map(\.other))
        remove(node)
        return Array(neighbours)
    }

    /// Adds the shortcuts `node` requires and takes it out of the remaining graph.
    mutating func remove(_ node: Int32) {
        _ = shortcutsNeeded(node, settleLimit: 500, apply: true)
        contracted[Int(node)] = true
        for edge in inEdges[Int(node)] { outEdges[Int(edge.other)].removeAll { $0.other == node } }
        for edge in outEdges[Int(node)] { inEdges[Int(edge.other)].removeAll { $0.other == node } }
    }

    /// Counts (and with `apply`, inserts) the shortcuts `u → w` through `node` that no witness path replaces.
    mutating func shortcutsNeeded(_ node: Int32, settleLimit: Int, apply: Bool) -> Int {
        let incoming = inEdges[Int(node)]
        let outgoing = outEdges[Int(node)]
        guard !incoming.isEmpty, !outgoing.isEmpty else { return 0 }
        let maxOut = outgoing.reduce(0) { max($0, $1.weight) }
        var count = 0
        for inEdge in incoming {
            let source = inEdge.other
            let limit = UInt64(inEdge.weight) + UInt64(maxOut)
            witness.run(
                from: source, avoiding: node, limit: limit, settleLimit: settleLimit, outEdges: outEdges,
                targets: outgoing.count { $0.other != source }, isTarget: outgoing)
            for outEdge in outgoing where outEdge.other != source {
                let viaCost = UInt64(inEdge.weight) + UInt64(outEdge.weight)
                guard witness.distance(to: outEdge.other) > viaCost else { continue }
                count += 1
                if apply { addShortcut(from: source, to: outEdge.other, weight: UInt32(viaCost), via: node) }
            }
        }
        return count
    }

    mutating func addShortcut(from source: Int32, to target: Int32, weight: UInt32, via: Int32) {
        let shortcut = Edge(other: target, weight: weight, via: via)
        if let existing = outEdges[Int(source)].firstIndex(where: { $0.other == target }) {
            guard weight < outEdges[Int(source)][existing].weight else { return }
            outEdges[Int(source)][existing] = shortcut
            let reverse = inEdges[Int(target)].firstIndex { $0.other == source }!
            inEdges[Int(target)][reverse] = Edge(other: source, weight: weight, via: via)
        } else {
            outEdges[Int(source)].append(shortcut)
            inEdges[Int(target)].append(Edge(other: source, weight: weight, via: via))
        }
    }
}

/// A bounded Dijkstra that looks for a path avoiding the node being contracted. Arrays are reused between runs
/// with a round stamp, so a run costs only what it visits.
private struct WitnessSearch {
    var distances: [UInt64]
    var stamps: [UInt32]
    var targetStamps: [UInt32]
    var round: UInt32 = 0
    var heap = MinHeap<UInt64>()

    init(nodeCount: Int) {
        distances = Array(repeating: .max, count: nodeCount)
        stamps = Array(repeating: 0, count: nodeCount)
        targetStamps = Array(repeating: 0, count: nodeCount)
    }

    func distance(to node: Int32) -> UInt64 { stamps[Int(node)] == round ? distances[Int(node)] : .max }

    mutating func run(
        from source: Int32, avoiding avoided: Int32, limit: UInt64, settleLimit: Int,
        outEdges: [[ContractionHierarchy.Edge]], targets: Int, isTarget: [ContractionHierarchy.Edge]
    ) {
        round &+= 1
        if round == 0 {
            stamps = Array(repeating: 0, count: stamps.count)
            targetStamps = Array(repeating: 0, count: stamps.count)
            round = 1
        }
        for edge in isTarget { targetStamps[Int(edge.other)] = round }
        targetStamps[Int(source)] = 0
        var remaining = targets
        heap.removeAll()
        distances[Int(source)] = 0
        stamps[Int(source)] = round
        heap.push(0, source)
        var settled = 0
        while let (key, node) = heap.pop() {
            guard key == distances[Int(node)] else { continue }
            guard key <= limit, settled < settleLimit else { break }
            settled += 1
            if targetStamps[Int(node)] == round {
                // Every target settled: their distances are final, nothing more to learn.
                targetStamps[Int(node)] = 0
                remaining -= 1
                if remaining == 0 { break }
            }
            for edge in outEdges[Int(node)] where edge.other != avoided {
                let candidate = key + UInt64(edge.weight)
                let target = Int(edge.other)
                if stamps[target] != round || candidate < distances[target] {
                    distances[target] = candidate
                    stamps[target] = round
                    heap.push(candidate, edge.other)
                }
            }
        }
    }
}
