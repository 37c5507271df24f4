/// Kosaraju's algorithm without recursion, so a million-node graph does not overflow the stack.
enum StronglyConnectedComponents {
    /// `true` for the nodes of the largest strongly connected component.
    static func largest(in graph: RoadGraph) -> [Bool] {
        let nodeCount = graph.nodeCount
        guard nodeCount > 0 else { return [] }
        // Reverse adjacency in compressed rows.
        var reverseFirst = [Int32](repeating: 0, count: nodeCount + 1)
        for target in graph.arcTarget { reverseFirst[Int(target) + 1] += 1 }
        for node in 0..<nodeCount { reverseFirst[node + 1] += reverseFirst[node] }
        var cursor = reverseFirst
        var reverseSource = [Int32](repeating: 0, count: graph.arcCount)
        for node in 0..<Int32(nodeCount) {
            for arc in graph.arcs(from: node) {
                let target = Int(graph.arcTarget[arc])
                reverseSource[Int(cursor[target])] = node
                cursor[target] += 1
            }
        }

        // First pass: finishing order of a depth-first search on the forward graph.
        var visited = [Bool](repeating: false, count: nodeCount)
        var order: [Int32] = []
        order.reserveCapacity(nodeCount)
        var stack: [(node: Int32, nextArc: Int)] = []
        for start in 0..<Int32(nodeCount) where !visited[Int(start)] {
            visited[Int(start)] = true
            stack.append((start, Int(graph.firstArc[Int(start)])))
            while let top = stack.last {
                let end = Int(graph.firstArc[Int(top.node) + 1])
                if top.nextArc < end {
                    stack[stack.count - 1].nextArc += 1
                    let target = graph.arcTarget[top.nextArc]
                    if !visited[Int(target)] {
                        visited[Int(target)] = true
                        stack.append((target, Int(graph.firstArc[Int(target)])))
                    }
                } else {
                    order.append(top.node)
                    stack.removeLast()
                }
            }
        }

        // Second pass: components on the reverse graph in reverse finishing order.
        var component = [Int32](repeating: -1, count: nodeCount)
        var sizes: [Int] = []
        var work: [Int32] = []
        for start in order.reversed() where component[Int(start)] < 0 {
            let id = Int32(sizes.count)
            var size = 0
            component[Int(start)] = id
            work.append(start)
            while let node = work.popLast() {
                size += 1
                for index in Int(reverseFirst[Int(node)])..<Int(reverseFirst[Int(node) + 1]) {
                    let source = reverseSource[index]
                    if component[Int(source)] < 0 {
                        component[Int(source)] = id
                        work.append(source)
                    }
                }
            }
            sizes.append(size)
        }
        let largest = Int32(sizes.indices.max { sizes[$0] < sizes[$1] } ?? 0)
        return component.map { $0 == largest }
    }
}
