import Foundation
import Logging
import LogisticsStore
import RoadRouting

/// Times pgRouting's `pgr_dijkstra` on our own Monaco graph (the same arcs and lengths) for the same pairs the CH
/// answers, and checks both find the same shortest distances.
enum PgRoutingComparison {
    static func measure(roadMap: RoadMap, databaseURL: String, pairs: [(Int32, Int32)]) async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let database = try await StoreFactory.open(
            .postgres(.init(url: databaseURL, poolSize: 2, operationTimeout: .seconds(120))), logger: logger)
        defer { Task { await database.close() } }
        do {
            _ = try await database.query("CREATE EXTENSION IF NOT EXISTS pgrouting CASCADE")
        } catch {
            Console.line(
                "  pgRouting: not available on this PostgreSQL (apt-get install postgresql-15-pgrouting): \(String(describing: error).prefix(160)); skipped"
            )
            return
        }
        let graph = roadMap.graph
        let weights = roadMap.weights[.distance]!
        _ = try await database.query("DROP TABLE IF EXISTS bench_road_arcs")
        _ = try await database.query(
            "CREATE TABLE bench_road_arcs (id bigint, source bigint, target bigint, cost double precision, reverse_cost double precision)"
        )
        var rows: [String] = []
        for node in 0..<Int32(graph.nodeCount) {
            for arc in graph.arcs(from: node) {
                // Metres from the same integer centimetres the hierarchy uses; arcs are one-way rows.
                rows.append("(\(arc), \(node), \(graph.arcTarget[arc]), \(Double(weights[arc]) / 100), -1)")
                if rows.count == 2_000 {
                    _ = try await database.query("INSERT INTO bench_road_arcs VALUES " + rows.joined(separator: ","))
                    rows.removeAll()
                }
            }
        }
        if !rows.isEmpty {
            _ = try await database.query("INSERT INTO bench_road_arcs VALUES " + rows.joined(separator: ","))
        }
        let query = HierarchyQuery(hierarchy: roadMap.hierarchies[.distance]!)
        var latencies: [Double] = []
        var disagreements = 0
        for (source, target) in pairs {
            let start = DispatchTime.now().uptimeNanoseconds
            let row = try await database.first(
                """
                SELECT agg_cost FROM pgr_dijkstra(
                    'SELECT id, source, target, cost, reverse_cost FROM bench_road_arcs', ?, ?, true)
                ORDER BY seq DESC LIMIT 1
                """, [.int(Int64(source)), .int(Int64(target))])
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            let theirs = row?.optionalDouble("agg_cost") ?? (source == target ? 0 : -1)
            let ours =
                query.shortestPath(from: [.init(node: source, cost: 0)], to: [.init(node: target, cost: 0)])
                .map { Double($0.cost) / 100 } ?? -1
            if abs(theirs - ours) > 0.05 { disagreements += 1 }
        }
        _ = try await database.query("DROP TABLE bench_road_arcs")
        Console.line(
            "  pgr_dijkstra (distance) over \(latencies.count) pairs: \(RoutingBench.summary(latencies)); "
                + "disagrees with our CH on \(disagreements)")
    }
}
