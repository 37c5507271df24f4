/// A customisable contraction hierarchy (Dibbelt, Strasser & Wagner, 2016): the shortcut structure comes from a
/// metric-independent order alone (every pair of higher neighbours of a contracted node is joined, no witness
/// search), so new weights need only a customisation pass, not a new contraction.
///
/// The structure is built once per map. `customise(weights:metric:)` then turns any arc weights into a
/// `ContractionHierarchy` that the ordinary queries, matrices and path unpacking use unchanged.
public struct CustomisableHierarchy: Sendable {
    public let nodeOfRank: [Int32]
    /// Edges `{x, y}` with rank x < y, in rows by x: `first[x] ..< first[x + 1]`, `upper[e]` = y, ascending.
    /// Chordality guarantees that two higher neighbours of a node are neighbours themselves.
    let first: [Int32]
    let upper: [Int32]
    /// Per graph arc: its edge × 2, plus 1 when the arc runs downward (from the higher rank); -1 for a loop.
    let arcSlot: [Int32]

    public var nodeCount: Int { nodeOfRank.count }
    public var edgeCount: Int { upper.count }

    /// Bytes of the structure; a customisation adds two weights and two unpacking entries per edge while it runs.
    public var memoryBytes: Int { (nodeOfRank.count + first.count + upper.count + arcSlot.count) * 4 }

    /// The triangles a customisation relaxes: its cost, whatever the weights.
    public var triangleCount: Int {
        (0..<nodeCount).reduce(0) { total, rank in
            let degree = Int(first[rank + 1] - first[rank])
            return total + degree * (degree - 1) / 2
        }
    }

    /// Nil when the structure would exceed `edgeLimit` edges: an order chosen for one metric (a static
    /// hierarchy's) can need far more shortcuts without witness searches, on grids above all.
    public init?(graph: RoadGraph, ranks: [Int32], edgeLimit: Int = .max) {
        let count = graph.nodeCount
        var nodeOfRank = [Int32](repeating: 0, count: count)
        for node in 0..<count { nodeOfRank[Int(ranks[node])] = Int32(node) }
        var higher: [[Int32]] = Array(repeating: [], count: count)
        for node in 0..<Int32(count) {
            for arc in graph.arcs(from: node) {
                let a = ranks[Int(node)]
                let b = ranks[Int(graph.arcTarget[arc])]
                guard a != b else { continue }
                higher[Int(min(a, b))].append(max(a, b))
            }
        }
        // Contracting in rank order: a node's higher neighbours become a clique, which is recorded at the lowest
        // of them (its parent in the elimination tree); the rest of the clique follows when the parent goes.
        for rank in 0..<count { higher[rank] = Set(higher[rank]).sorted() }
        var edges = 0
        for rank in 0..<count {
            let row = higher[rank]
            edges += row.count
            guard edges <= edgeLimit else { return nil }
            guard row.count >= 2 else { continue }
            let parent = Int(row[0])
            higher[parent] = Self.union(higher[parent], row[1...])
        }
        var first = [Int32](repeating: 0, count: count + 1)
        var upper: [Int32] = []
        upper.reserveCapacity(higher.reduce(0) { $0 + $1.count })
        for rank in 0..<count {
            upper.append(contentsOf: higher[rank])
            higher[rank] = []
            first[rank + 1] = Int32(upper.count)
        }
        var arcSlot = [Int32](repeating: -1, count: graph.arcCount)
        for node in 0..<Int32(count) {
            for arc in graph.arcs(from: node) {
                let a = ranks[Int(node)]
                let b = ranks[Int(graph.arcTarget[arc])]
                guard a != b else { continue }
                let edge = Self.edge(from: min(a, b), to: max(a, b), first: first, upper: upper)
                arcSlot[arc] = edge * 2 + (a < b ? 0 : 1)
            }
        }
        self.nodeOfRank = nodeOfRank
        self.first = first
        self.upper = upper
        self.arcSlot = arcSlot
    }

    /// Builds the structure with a nested dissection order.
    public static func build(graph: RoadGraph) -> CustomisableHierarchy {
        CustomisableHierarchy(graph: graph, ranks: DissectionOrder.ranks(graph: graph))!
    }

    /// Two ascending rows merged, without repeats.
    static func union(_ a: [Int32], _ b: ArraySlice<Int32>) -> [Int32] {
        var merged: [Int32] = []
        merged.reserveCapacity(a.count + b.count)
        var i = a.startIndex
        var j = b.startIndex
        while i < a.endIndex || j < b.endIndex {
            let next: Int32
            if j == b.endIndex || (i < a.endIndex && a[i] < b[j]) {
                next = a[i]
                i += 1
            } else {
                next = b[j]
                if i < a.endIndex, a[i] == next { i += 1 }
                j += 1
            }
            merged.append(next)
        }
        return merged
    }

    /// The edge `{lower, higher}` (ranks); it must exist.
    static func edge(from lower: Int32, to higher: Int32, first: [Int32], upper: [Int32]) -> Int32 {
        var low = Int(first[Int(lower)])
        var high = Int(first[Int(lower) + 1])
        while low < high {
            let middle = (low + high) / 2
            if upper[middle] < higher { low = middle + 1 } else { high = middle }
        }
        return Int32(low)
    }

    func edge(from lower: Int32, to higher: Int32) -> Int32 {
        Self.edge(from: lower, to: higher, first: first, upper: upper)
    }
}
