import Foundation
import RoadRouting
import Testing

extension RoadRoutingSuites {
    @Suite("Contraction hierarchies")
    struct HierarchyTests {
        @Test("CH equals plain Dijkstra on 1,000 random pairs", arguments: [RouteMetric.time, .distance])
        func chEqualsDijkstra(metric: RouteMetric) throws {
            let map = MonacoFixture.motorcycle
            let graph = map.graph
            let hierarchy = try #require(map.hierarchies[metric])
            let query = HierarchyQuery(hierarchy: hierarchy)
            let dijkstra = DijkstraSearch(graph: graph, metric: metric)
            let main = graph.routableNodes
            var generator = SeededGenerator(state: 2024)
            let pairs = metric == .time ? 1_000 : 300
            var mismatches: [String] = []
            for _ in 0..<pairs {
                let source = main.randomElement(using: &generator)!
                let target = main.randomElement(using: &generator)!
                let seeds = ([SearchSeed(node: source, cost: 0)], [SearchSeed(node: target, cost: 0)])
                let expected = dijkstra.shortestPath(from: seeds.0, to: seeds.1)
                let found = query.shortestPath(from: seeds.0, to: seeds.1)
                if expected?.cost != found?.cost {
                    mismatches.append(
                        "\(source)→\(target): \(String(describing: expected?.cost)) vs \(String(describing: found?.cost))"
                    )
                }
                // The unpacked arcs must be a connected path whose weights add up to the cost.
                if let found {
                    let weights = map.weights[metric]!
                    #expect(found.arcs.reduce(UInt64(0)) { $0 + UInt64(weights[$1]) } == found.cost)
                    var node = source
                    for arc in found.arcs {
                        #expect(graph.sourceNode(ofArc: arc) == node)
                        node = graph.arcTarget[arc]
                    }
                    #expect(graph.originalNode[Int(node)] == target)
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        }
    }
}
