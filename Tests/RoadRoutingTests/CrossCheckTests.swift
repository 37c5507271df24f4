import Foundation
import RoadRouting
import Testing

extension RoadRoutingSuites {
    @Suite("Cross-check against an independent reference")
    struct CrossCheckTests {
        struct ReferencePair {
            var from: Int64
            var to: Int64
            var distanceM: Double
        }

        /// Made by Scripts/routing-reference/monaco_reference.py (pyosmium + networkx, car, shortest by distance).
        static func referencePairs() throws -> [ReferencePair] {
            let path = MonacoFixture.projectRoot.appendingPathComponent(
                "Tests/RoadRoutingTests/Fixtures/monaco-car-reference.csv")
            let text = try String(contentsOf: path, encoding: .utf8)
            return text.split(separator: "\n").dropFirst().map { line in
                let fields = line.split(separator: ",")
                return ReferencePair(from: Int64(fields[0])!, to: Int64(fields[1])!, distanceM: Double(fields[6])!)
            }
        }

        @Test("car shortest distances agree within 1% with networkx on 150 random Monaco pairs")
        func agreesWithNetworkx() async throws {
            let graph = await MonacoFixture.carWithoutRestrictions.graph
            let search = HierarchyQuery(
                hierarchy: try #require(await MonacoFixture.carWithoutRestrictions.hierarchies[.distance]))
            let pairs = try Self.referencePairs()
            var compared = 0
            var worst = 0.0
            for pair in pairs {
                let from = try #require(graph.node(osm: pair.from), "node \(pair.from) missing from our graph")
                let to = try #require(graph.node(osm: pair.to), "node \(pair.to) missing from our graph")
                let path = try #require(
                    search.shortestPath(from: [.init(node: from, cost: 0)], to: [.init(node: to, cost: 0)]))
                let ours = path.arcs.reduce(0.0) { $0 + Double(graph.arcDistanceM[$1]) }
                let deviation = pair.distanceM == 0 ? abs(ours) : abs(ours - pair.distanceM) / pair.distanceM
                worst = max(worst, deviation)
                #expect(deviation <= 0.01, "\(pair.from)→\(pair.to): ours \(ours) m, reference \(pair.distanceM) m")
                compared += 1
            }
            #expect(compared >= 100)
            print("cross-check: \(compared) pairs, worst deviation \(String(format: "%.4f", worst * 100))%")
        }

        @Test("with turn restrictions, routes are never shorter than the unrestricted reference")
        func restrictionsOnlyLengthen() async throws {
            let graph = await MonacoFixture.car.graph
            let search = HierarchyQuery(hierarchy: try #require(await MonacoFixture.car.hierarchies[.distance]))
            var longer = 0
            for pair in try Self.referencePairs() {
                let from = try #require(graph.node(osm: pair.from))
                let to = try #require(graph.node(osm: pair.to))
                let path = try #require(
                    search.shortestPath(from: [.init(node: from, cost: 0)], to: [.init(node: to, cost: 0)]))
                let ours = path.arcs.reduce(0.0) { $0 + Double(graph.arcDistanceM[$1]) }
                #expect(ours >= pair.distanceM * 0.999)
                if ours > pair.distanceM * 1.01 { longer += 1 }
            }
            print("with turn restrictions: \(longer) of the reference pairs are more than 1% longer")
        }
    }
}
