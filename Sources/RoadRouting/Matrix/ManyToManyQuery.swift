import Dispatch
import Foundation
import Synchronization

/// A search start or end for a matrix: a node with the cost and length already spent (or still to spend) on the
/// partial segment between the position and the node.
public struct MatrixSeed: Sendable, Equatable {
    public var node: Int32
    public var cost: UInt64
    public var lengthM: Double

    public init(node: Int32, cost: UInt64, lengthM: Double) {
        self.node = node
        self.cost = cost
        self.lengthM = lengthM
    }
}

/// The best path's cost and length between one source and one target.
public struct MatrixCell: Sendable, Equatable {
    public var cost: UInt64
    public var lengthM: Double
}

/// Many-to-many shortest paths on a contraction hierarchy with buckets (Knopp et al., 2007): one upward search
/// backwards from each target leaves (target, cost) in a bucket at every node it settles; one upward search forwards
/// from each source then meets them all by reading the buckets of the nodes it settles. An s × t table costs
/// s + t searches instead of s · t; the forward searches run in parallel.
public struct ManyToManyQuery: Sendable {
    public let hierarchy: ContractionHierarchy
    public let lengths: HierarchyLengths

    public init(hierarchy: ContractionHierarchy, lengths: HierarchyLengths) {
        self.hierarchy = hierarchy
        self.lengths = lengths
    }

    private struct BucketEntry {
        var target: Int32
        var cost: UInt64
        var lengthM: Double
    }

    /// One row per source, one cell per target; nil where no path joins them (or a side has no seeds).
    public func table(sources: [[MatrixSeed]], targets: [[MatrixSeed]]) -> [[MatrixCell?]] {
        let nodeCount = hierarchy.forwardFirst.count - 1
        // Buckets as compressed rows by node: counted, then filled.
        var space = UpwardSpace(nodeCount: nodeCount)
        var settledByTarget: [[(node: Int32, cost: UInt64, lengthM: Double)]] = []
        var bucketCount = [Int32](repeating: 0, count: nodeCount + 1)
        for seeds in targets {
            let settled = space.search(
                from: seeds, first: hierarchy.backwardFirst, edges: hierarchy.backwardEdges, lengths: lengths.backward)
            for entry in settled { bucketCount[Int(entry.node) + 1] += 1 }
            settledByTarget.append(settled)
        }
        for node in 0..<nodeCount { bucketCount[node + 1] += bucketCount[node] }
        var fill = bucketCount
        var buckets = [BucketEntry](
            repeating: BucketEntry(target: 0, cost: 0, lengthM: 0), count: Int(bucketCount[nodeCount]))
        for (target, settled) in settledByTarget.enumerated() {
            for entry in settled {
                buckets[Int(fill[Int(entry.node)])] = BucketEntry(
                    target: Int32(target), cost: entry.cost, lengthM: entry.lengthM)
                fill[Int(entry.node)] += 1
            }
        }
        settledByTarget = []

        let rows = Mutex([[MatrixCell?]](repeating: [], count: sources.count))
        let workers = min(sources.count, max(1, ProcessInfo.processInfo.activeProcessorCount))
        let hierarchy = hierarchy
        let lengths = lengths
        let finalBuckets = buckets
        let bucketStart = bucketCount
        let targetCount = targets.count
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var space = UpwardSpace(nodeCount: nodeCount)
            for source in stride(from: worker, to: sources.count, by: workers) {
                var row = [MatrixCell?](repeating: nil, count: targetCount)
                let settled = space.search(
                    from: sources[source], first: hierarchy.forwardFirst, edges: hierarchy.forwardEdges,
                    lengths: lengths.forward)
                for entry in settled {
                    for index in Int(bucketStart[Int(entry.node)])..<Int(bucketStart[Int(entry.node) + 1]) {
                        let bucket = finalBuckets[index]
                        let cost = entry.cost + bucket.cost
                        if cost < row[Int(bucket.target)]?.cost ?? .max {
                            row[Int(bucket.target)] = MatrixCell(cost: cost, lengthM: entry.lengthM + bucket.lengthM)
                        }
                    }
                }
                let finished = row
                rows.withLock { $0[source] = finished }
            }
        }
        return rows.withLock { $0 }
    }
}

/// Reusable state for complete upward searches: arrays the size of the graph, reset through the list of nodes
/// touched, so a search costs what it visits, not what the graph holds.
private struct UpwardSpace {
    var cost: [UInt64]
    var lengthM: [Double]
    var touched: [Int32] = []
    var heap = MinHeap<UInt64>()

    init(nodeCount: Int) {
        cost = Array(repeating: .max, count: nodeCount)
        lengthM = Array(repeating: 0, count: nodeCount)
    }

    /// Every node reachable upward from the seeds, with its best upward cost and that path's length.
    mutating func search(
        from seeds: [MatrixSeed], first: [Int32], edges: [ContractionHierarchy.Edge], lengths: [Float]
    ) -> [(node: Int32, cost: UInt64, lengthM: Double)] {
        for node in touched { cost[Int(node)] = .max }
        touched.removeAll(keepingCapacity: true)
        heap.removeAll()
        for seed in seeds where seed.cost < cost[Int(seed.node)] {
            if cost[Int(seed.node)] == .max { touched.append(seed.node) }
            cost[Int(seed.node)] = seed.cost
            lengthM[Int(seed.node)] = seed.lengthM
            heap.push(seed.cost, seed.node)
        }
        var settled: [(node: Int32, cost: UInt64, lengthM: Double)] = []
        while let (key, node) = heap.pop() {
            guard key == cost[Int(node)] else { continue }
            let length = lengthM[Int(node)]
            settled.append((node, key, length))
            for index in Int(first[Int(node)])..<Int(first[Int(node) + 1]) {
                let edge = edges[index]
                let candidate = key + UInt64(edge.weight)
                let other = Int(edge.other)
                if candidate < cost[other] {
                    if cost[other] == .max { touched.append(edge.other) }
                    cost[other] = candidate
                    lengthM[other] = length + Double(lengths[index])
                    heap.push(candidate, edge.other)
                }
            }
        }
        return settled
    }
}
