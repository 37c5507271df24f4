/// Road distances from one node to the nodes around it, up to a limit: the transition costs of the map matcher,
/// one search per candidate of a fix. Its arrays are sized to the graph once and reset through the nodes a search
/// touched, so a search costs what it visits, not the graph's size.
struct NearbyDistances {
    private let graph: RoadGraph
    /// Centimetres per arc, as the shortest-route metric has them.
    private let weights: [UInt32]
    private var distance: [UInt64]
    private var parentArc: [Int32]
    private var touched: [Int32] = []
    private var heap = MinHeap<UInt64>()

    init(graph: RoadGraph, weights: [UInt32]) {
        self.graph = graph
        self.weights = weights
        distance = [UInt64](repeating: .max, count: graph.nodeCount)
        parentArc = [Int32](repeating: -1, count: graph.nodeCount)
    }

    /// Settles nodes outward from `source` until `limitCm` or until every node of `wanted` is settled; afterwards
    /// `centimetres(to:)` answers for the settled ones.
    mutating func search(from source: Int32, limitCm: UInt64, wanted: Set<Int32>) {
        for node in touched {
            distance[Int(node)] = .max
            parentArc[Int(node)] = -1
        }
        touched.removeAll(keepingCapacity: true)
        heap.removeAll()
        distance[Int(source)] = 0
        touched.append(source)
        heap.push(0, source)
        var remaining = wanted
        while let (key, node) = heap.pop() {
            guard key == distance[Int(node)] else { continue }
            guard key <= limitCm else { break }
            remaining.remove(node)
            if remaining.isEmpty { break }
            for arc in graph.arcs(from: node) {
                let target = Int(graph.arcTarget[arc])
                let candidate = key + UInt64(weights[arc])
                if candidate < distance[target] {
                    if distance[target] == .max { touched.append(Int32(target)) }
                    distance[target] = candidate
                    parentArc[target] = Int32(arc)
                    heap.push(candidate, Int32(target))
                }
            }
        }
    }

    /// The road distance to `node` in centimetres, if the last search reached it within its limit.
    func centimetres(to node: Int32) -> UInt64? {
        distance[Int(node)] == .max ? nil : distance[Int(node)]
    }

    /// The arcs of the shortest path the last search found to `node`, in driving order.
    func arcs(to node: Int32) -> [Int] {
        var path: [Int] = []
        var current = node
        while parentArc[Int(current)] >= 0 {
            let arc = Int(parentArc[Int(current)])
            path.append(arc)
            current = graph.sourceNode(ofArc: arc)
        }
        return path.reversed()
    }
}
