import Foundation
import LogisticsCore
import RoadRouting
import Testing
import Threads

extension RoadRoutingSuites {
    @Suite("Contraction hierarchies")
    struct HierarchyTests {
        @Test("CH equals plain Dijkstra on 1,000 random pairs", arguments: [RouteMetric.time, .distance])
        func chEqualsDijkstra(metric: RouteMetric) async throws {
            let map = await MonacoFixture.motorcycle
            let hierarchy = try #require(map.hierarchies[metric])
            // A few thousand searches: on a thread of their own, not one of the cooperative pool's that the other
            // suites' servers answer on.
            let (mismatches, brokenPaths) = await OwnThread.run {
                Self.compare(
                    graph: map.graph, hierarchy: hierarchy, weights: map.weights[metric]!,
                    pairs: metric == .time ? 1_000 : 300)
            }
            #expect(brokenPaths.isEmpty, "\(brokenPaths.prefix(5))")
            #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        }

        /// CH against Dijkstra on seeded random pairs: the pairs whose costs differ, and the CH paths that are not
        /// a connected path from source to target whose weights add up to the cost.
        static func compare(graph: RoadGraph, hierarchy: ContractionHierarchy, weights: [UInt32], pairs: Int)
            -> (mismatches: [String], brokenPaths: [String])
        {
            let query = HierarchyQuery(hierarchy: hierarchy)
            let dijkstra = DijkstraSearch(graph: graph, weights: weights)
            let main = graph.routableNodes
            var generator = SeededGenerator(state: 2024)
            var mismatches: [String] = []
            var brokenPaths: [String] = []
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
                guard let found else { continue }
                var node = source
                var connected = true
                for arc in found.arcs {
                    if graph.sourceNode(ofArc: arc) != node { connected = false }
                    node = graph.arcTarget[arc]
                }
                let weight = found.arcs.reduce(UInt64(0)) { $0 + UInt64(weights[$1]) }
                if !connected || graph.originalNode[Int(node)] != target || weight != found.cost {
                    brokenPaths.append(
                        "\(source)→\(target): connected \(connected), weights \(weight) vs \(found.cost)")
                }
            }
            return (mismatches, brokenPaths)
        }
    }
}
