/// Plain Dijkstra over the road graph: the reference the contraction hierarchy is checked against, and the
/// baseline of the routing benchmark.
public struct DijkstraSearch: Sendable {
    public let graph: RoadGraph
    public let weights: [UInt32]

    public init(graph: RoadGraph, metric: RouteMetric) {
        self.graph = graph
        self.weights = graph.weights(metric)
    }

    /// Searches with any arc weights, such as customised traffic weights.
    public init(graph: RoadGraph, weights: [UInt32]) {
        self.graph = graph
        self.weights = weights
    }

    public func shortestPath(from sources: [SearchSeed], to targets: [SearchSeed]) -> SearchPath? {
        var distance = [UInt64](repeating: .max, count: graph.nodeCount)
        var parentArc = [Int32](repeating: -1, count: graph.nodeCount)
        var targetCost: [Int32: UInt64] = [:]
        for target in targets { targetCost[target.node] = min(targetCost[target.node] ?? .max, target.cost) }
        var heap = MinHeap<UInt64>()
        for source in sources where source.cost < distance[Int(source.node)] {
            distance[Int(source.node)] = source.cost
            heap.push(source.cost, source.node)
        }
        var best: UInt64 = .max
        var bestTarget: Int32 = -1
        while let (key, node) = heap.pop() {
            guard key == distance[Int(node)] else { continue }
            guard key < best else { break }
            if let extra = targetCost[node], key + extra < best {
                best = key + extra
                bestTarget = node
            }
            for arc in graph.arcs(from: node) {
                let target = Int(graph.arcTarget[arc])
                let candidate = key + UInt64(weights[arc])
                if candidate < distance[target] {
                    distance[target] = candidate
                    parentArc[target] = Int32(arc)
                    heap.push(candidate, Int32(target))
                }
            }
        }
        guard bestTarget >= 0 else { return nil }
        var arcs: [Int] = []
        var node = bestTarget
        let sourceCosts = Dictionary(sources.map { ($0.node, $0.cost) }, uniquingKeysWith: min)
        // Walk back until a seed whose own cost explains the distance (a seed may also be reached through others).
        while parentArc[Int(node)] >= 0, sourceCosts[node] != distance[Int(node)] {
            let arc = Int(parentArc[Int(node)])
            arcs.append(arc)
            node = graph.sourceNode(ofArc: arc)
        }
        return SearchPath(cost: best, arcs: arcs.reversed(), sourceNode: node, targetNode: bestTarget)
    }
}

extension RoadGraph {
    /// The node an arc leaves from: a binary search in the row offsets.
    public func sourceNode(ofArc arc: Int) -> Int32 {
        var low = 0
        var high = nodeCount - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if Int(firstArc[middle]) <= arc { low = middle } else { high = middle - 1 }
        }
        return Int32(low)
    }
}
