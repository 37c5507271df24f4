import Foundation

/// A contraction order that does not depend on any metric: nested dissection on the nodes' positions.
///
/// Each part of the graph is cut in two at the median of one of four directions (north, east and the two
/// diagonals), whichever cut needs the fewest nodes to separate the halves; those separator nodes come last in the
/// part's order and both halves are ordered the same way, recursively. Road networks (and grids) have small
/// geometric separators, and a separator ordered last keeps the fill of a customisable hierarchy small: no
/// shortcut ever crosses between the two halves. This is the "inertial flow" idea without the flow refinement.
public enum DissectionOrder {
    /// `rank[node]`: the node's place in the order, 0 contracted first.
    public static func ranks(graph: RoadGraph) -> [Int32] {
        var dissection = Dissection(graph: graph)
        dissection.order(Array(0..<Int32(graph.nodeCount)), lowestRank: 0)
        return dissection.rank
    }
}

/// Working state of one nested dissection.
private struct Dissection {
    /// Undirected neighbours in compressed rows, without self-loops.
    let first: [Int32]
    let neighbours: [Int32]
    /// Projected positions: x east, y north, both in 1e-7 degrees (longitude scaled for latitude).
    let x: [Int64]
    let y: [Int64]
    var rank: [Int32]
    /// Which part a node currently belongs to, and on which side of the cut being tried.
    var part: [Int32]
    var side: [UInt8]
    var nextPart: Int32 = 0
    /// Parts this small are ordered as they come: their fill is bounded by their size.
    let leafSize = 8

    init(graph: RoadGraph) {
        let count = graph.nodeCount
        var pairs: [[Int32]] = Array(repeating: [], count: count)
        for node in 0..<Int32(count) {
            for arc in graph.arcs(from: node) {
                let target = graph.arcTarget[arc]
                guard target != node else { continue }
                pairs[Int(node)].append(target)
                pairs[Int(target)].append(node)
            }
        }
        var first = [Int32](repeating: 0, count: count + 1)
        var neighbours: [Int32] = []
        for node in 0..<count {
            neighbours.append(contentsOf: Set(pairs[node]).sorted())
            first[node + 1] = Int32(neighbours.count)
        }
        self.first = first
        self.neighbours = neighbours
        let meanLat = graph.latE7.isEmpty ? 0 : Double(graph.latE7.reduce(0) { $0 + Int64($1) }) / Double(count) / 1e7
        let lonScale = cos(meanLat * .pi / 180)
        x = graph.lonE7.map { Int64((Double($0) * lonScale).rounded()) }
        y = graph.latE7.map { Int64($0) }
        rank = Array(repeating: -1, count: count)
        part = Array(repeating: -1, count: count)
        side = Array(repeating: 0, count: count)
    }

    /// Gives `nodes` the ranks `lowestRank ..< lowestRank + nodes.count`.
    mutating func order(_ nodes: [Int32], lowestRank: Int32) {
        if nodes.count <= leafSize {
            for (offset, node) in nodes.enumerated() { rank[Int(node)] = lowestRank + Int32(offset) }
            return
        }
        nextPart += 1
        let label = nextPart
        for node in nodes { part[Int(node)] = label }
        var best: (separator: [Int32], low: [Int32], high: [Int32])?
        for direction in 0..<4 {
            let cut = cut(nodes, direction: direction, label: label)
            if best == nil || cut.separator.count < best!.separator.count { best = cut }
        }
        let (separator, low, high) = best!
        order(low, lowestRank: lowestRank)
        order(high, lowestRank: lowestRank + Int32(low.count))
        let top = lowestRank + Int32(low.count + high.count)
        for (offset, node) in separator.enumerated() { rank[Int(node)] = top + Int32(offset) }
    }

    /// Splits at the median along one direction; the separator is the boundary of the side that has fewer
    /// boundary nodes, so the remaining two sides share no edge.
    mutating func cut(_ nodes: [Int32], direction: Int, label: Int32) -> (
        separator: [Int32], low: [Int32], high: [Int32]
    ) {
        let sorted = nodes.map { (key($0, direction), $0) }.sorted { $0.0 < $1.0 }.map(\.1)
        let half = sorted.count / 2
        for (offset, node) in sorted.enumerated() { side[Int(node)] = offset < half ? 0 : 1 }
        var boundary: [[Int32]] = [[], []]
        for node in sorted {
            let own = side[Int(node)]
            for index in Int(first[Int(node)])..<Int(first[Int(node) + 1]) {
                let other = Int(neighbours[index])
                if part[other] == label, side[other] != own {
                    boundary[Int(own)].append(node)
                    break
                }
            }
        }
        let separatorSide: UInt8 = boundary[0].count <= boundary[1].count ? 0 : 1
        let separator = boundary[Int(separatorSide)]
        for node in separator { side[Int(node)] = 2 }
        let low = sorted[..<half].filter { side[Int($0)] == 0 }
        let high = sorted[half...].filter { side[Int($0)] == 1 }
        return (separator, Array(low), Array(high))
    }

    func key(_ node: Int32, _ direction: Int) -> Int64 {
        switch direction {
        case 0: x[Int(node)]
        case 1: y[Int(node)]
        case 2: x[Int(node)] + y[Int(node)]
        default: x[Int(node)] - y[Int(node)]
        }
    }
}
