extension CustomisableHierarchy {
    /// Turns arc weights (one per graph arc, as `RoadGraph.weights` gives them) into a hierarchy for queries.
    ///
    /// Three passes over the edges, each linear in the triangles:
    /// 1. basic customisation, bottom-up: every edge gets the best path through lower nodes, and the middle node
    ///    of that path for unpacking;
    /// 2. perfect customisation, top-down: the best path through any node, i.e. the true distance;
    /// 3. pruning: an edge direction whose lower-node path is not a shortest path is dropped (a path over higher
    ///    nodes is shorter, and the upward searches find it), unless a kept edge unpacks through it.
    /// What remains is the hierarchy a contraction with exact witness searches would give for this order, so
    /// queries search as little as they do in a static hierarchy.
    public func customise(weights: [UInt32], metric: RouteMetric) -> ContractionHierarchy {
        precondition(weights.count == arcSlot.count, "one weight per arc")
        var lowerPaths = LowerPaths(edgeCount: edgeCount)
        lowerPaths.seed(weights: weights, arcSlot: arcSlot)
        lowerPaths.relaxLowerTriangles(first: first, upper: upper)
        var keep = shortestPathEdges(lowerPaths)
        keepUnpackedHalves(lowerPaths, keep: &keep)
        return hierarchy(lowerPaths, keep: keep, metric: metric)
    }

    /// Which edge directions carry a shortest path: their lower-node weight survives the perfect customisation.
    private func shortestPathEdges(_ paths: LowerPaths) -> (up: [Bool], down: [Bool]) {
        var up = paths.up
        var down = paths.down
        first.withUnsafeBufferPointer { first in
            upper.withUnsafeBufferPointer { upper in
                up.withUnsafeMutableBufferPointer { up in
                    down.withUnsafeMutableBufferPointer { down in
                        for x in stride(from: nodeCount - 1, through: 0, by: -1) {
                            let rowEnd = Int(first[x + 1])
                            for i in Int(first[x])..<rowEnd {
                                var q = Int(first[Int(upper[i])])
                                for j in (i + 1)..<rowEnd {
                                    let y = upper[j]
                                    while upper[q] != y { q += 1 }
                                    // Edge i is {x, z}, j is {x, y}, q is {z, y}, with x < z < y; all of q's
                                    // row is above x and already exact.
                                    relax(&up[i], up[j], down[q])  // x → y → z
                                    relax(&up[j], up[i], up[q])  // x → z → y
                                    relax(&down[i], up[q], down[j])  // z → y → x
                                    relax(&down[j], down[q], down[i])  // y → z → x
                                }
                            }
                        }
                    }
                }
            }
        }
        let keepUp = (0..<edgeCount).map { paths.up[$0] != .max && up[$0] == paths.up[$0] }
        let keepDown = (0..<edgeCount).map { paths.down[$0] != .max && down[$0] == paths.down[$0] }
        return (keepUp, keepDown)
    }

    /// Unpacking a kept shortcut looks up its two halves in the hierarchy, so they stay even where a shorter path
    /// exists; their lower-node weight is still a real path's length, so searches stay correct.
    private func keepUnpackedHalves(_ paths: LowerPaths, keep: inout (up: [Bool], down: [Bool])) {
        for x in stride(from: Int32(nodeCount - 1), through: 0, by: -1) {
            for e in Int(first[Int(x)])..<Int(first[Int(x) + 1]) {
                let y = upper[e]
                if keep.up[e], paths.upVia[e] >= 0 {
                    let z = paths.upVia[e]
                    keep.down[Int(edge(from: z, to: x))] = true
                    keep.up[Int(edge(from: z, to: y))] = true
                }
                if keep.down[e], paths.downVia[e] >= 0 {
                    let z = paths.downVia[e]
                    keep.down[Int(edge(from: z, to: y))] = true
                    keep.up[Int(edge(from: z, to: x))] = true
                }
            }
        }
    }

    private func hierarchy(_ paths: LowerPaths, keep: (up: [Bool], down: [Bool]), metric: RouteMetric)
        -> ContractionHierarchy
    {
        typealias Edge = ContractionHierarchy.Edge
        func via(_ value: Int32) -> Int32 { value < 0 ? value : nodeOfRank[Int(value)] }
        var forwardFirst = [Int32](repeating: 0, count: nodeCount + 1)
        var backwardFirst = [Int32](repeating: 0, count: nodeCount + 1)
        for x in 0..<nodeCount {
            let node = Int(nodeOfRank[x])
            for e in Int(first[x])..<Int(first[x + 1]) {
                if keep.up[e] { forwardFirst[node + 1] += 1 }
                if keep.down[e] { backwardFirst[node + 1] += 1 }
            }
        }
        for node in 0..<nodeCount {
            forwardFirst[node + 1] += forwardFirst[node]
            backwardFirst[node + 1] += backwardFirst[node]
        }
        var forwardEdges = [Edge](
            repeating: Edge(other: 0, weight: 0, via: 0), count: Int(forwardFirst[nodeCount]))
        var backwardEdges = [Edge](
            repeating: Edge(other: 0, weight: 0, via: 0), count: Int(backwardFirst[nodeCount]))
        var forwardNext = forwardFirst
        var backwardNext = backwardFirst
        for x in 0..<nodeCount {
            let node = Int(nodeOfRank[x])
            for e in Int(first[x])..<Int(first[x + 1]) {
                let other = nodeOfRank[Int(upper[e])]
                if keep.up[e] {
                    forwardEdges[Int(forwardNext[node])] = Edge(
                        other: other, weight: paths.up[e], via: via(paths.upVia[e]))
                    forwardNext[node] += 1
                }
                if keep.down[e] {
                    backwardEdges[Int(backwardNext[node])] = Edge(
                        other: other, weight: paths.down[e], via: via(paths.downVia[e]))
                    backwardNext[node] += 1
                }
            }
        }
        return ContractionHierarchy(
            metric: metric, forwardFirst: forwardFirst, forwardEdges: forwardEdges, backwardFirst: backwardFirst,
            backwardEdges: backwardEdges)
    }
}

/// Both directions' best paths through lower nodes, and how they unpack: `via` ≥ 0 is the middle node's rank,
/// negative the original arc `-(via + 1)`.
private struct LowerPaths {
    var up: [UInt32]
    var down: [UInt32]
    var upVia: [Int32]
    var downVia: [Int32]

    init(edgeCount: Int) {
        up = Array(repeating: .max, count: edgeCount)
        down = Array(repeating: .max, count: edgeCount)
        upVia = Array(repeating: 0, count: edgeCount)
        downVia = Array(repeating: 0, count: edgeCount)
    }

    /// Parallel arcs: only the cheapest matters to any shortest path.
    mutating func seed(weights: [UInt32], arcSlot: [Int32]) {
        for arc in 0..<arcSlot.count where arcSlot[arc] >= 0 {
            let e = Int(arcSlot[arc] >> 1)
            if arcSlot[arc] & 1 == 0 {
                if weights[arc] < up[e] {
                    up[e] = weights[arc]
                    upVia[e] = -Int32(arc) - 1
                }
            } else if weights[arc] < down[e] {
                down[e] = weights[arc]
                downVia[e] = -Int32(arc) - 1
            }
        }
    }

    /// Bottom-up: when node z is reached, its edges hold their final lower-node weights, and every pair of its
    /// higher neighbours x < y is an edge that may get shorter through z.
    mutating func relaxLowerTriangles(first: [Int32], upper: [Int32]) {
        let nodeCount = first.count - 1
        first.withUnsafeBufferPointer { first in
            upper.withUnsafeBufferPointer { upper in
                up.withUnsafeMutableBufferPointer { up in
                    down.withUnsafeMutableBufferPointer { down in
                        upVia.withUnsafeMutableBufferPointer { upVia in
                            downVia.withUnsafeMutableBufferPointer { downVia in
                                for z in 0..<nodeCount {
                                    let rowEnd = Int(first[z + 1])
                                    for i in Int(first[z])..<rowEnd {
                                        let toZ = down[i]  // x → z
                                        let fromZ = up[i]  // z → x
                                        if toZ == .max, fromZ == .max { continue }
                                        var p = Int(first[Int(upper[i])])
                                        for j in (i + 1)..<rowEnd {
                                            let y = upper[j]
                                            while upper[p] != y { p += 1 }
                                            if relax(&up[p], toZ, up[j]) { upVia[p] = Int32(z) }  // x → z → y
                                            if relax(&down[p], down[j], fromZ) { downVia[p] = Int32(z) }  // y → z → x
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `weight = min(weight, a + b)`, with `.max` standing for "no path"; true when the weight got smaller.
@inline(__always) @discardableResult
private func relax(_ weight: inout UInt32, _ a: UInt32, _ b: UInt32) -> Bool {
    let sum = UInt64(a) + UInt64(b)
    guard sum < UInt64(weight) else { return false }
    weight = UInt32(sum)
    return true
}
