import AsyncHTTPClient
import Foundation
import Logging
import LogisticsCore
import LogisticsServer
import RoadRouting

/// `GET /api/v1/routes` end to end against an in-process server with the map loaded: what a rider's app waits for.
enum RouteAPILoad {
    static func measure(map: String, requests: Int, concurrency counts: [Int]) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = InProcessServer.configuration(directory: directory)
        configuration.mapPath = map
        let logger = InProcessServer.logger
        let (ports, reporter) = AsyncStream.makeStream(of: Int.self)
        let built = try await buildApplication(configuration, logger: logger) { port in
            reporter.yield(port)
            reporter.finish()
        }
        let graph = (built.services.navigator.provider as? BuiltinDirections)?.maps[.motorcycle]?.graph
        guard let graph else { throw Console.failure("the map did not load") }
        let nodes = graph.routableNodes
        var random = SeededGenerator(state: 5)
        let pairs = (0..<requests).map { _ in
            (
                graph.coordinate(nodes.randomElement(using: &random)!),
                graph.coordinate(nodes.randomElement(using: &random)!)
            )
        }
        let token = try await AccessTokenIssuer(secret: configuration.jwtSecret!).token(
            subject: UUID(), role: .dispatcher, now: Date())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await built.application.runService() }
            for await port in ports {
                let http = HTTPClient(eventLoopGroupProvider: .singleton)
                for concurrency in counts {
                    try await measure(
                        http: http, base: "http://127.0.0.1:\(port)", pairs: pairs, token: token,
                        concurrency: concurrency)
                }
                try await http.shutdown()
            }
            group.cancelAll()
        }
    }

    private static func measure(
        http: HTTPClient, base: String, pairs: [(GeoPoint, GeoPoint)], token: String, concurrency: Int
    ) async throws {
        let recorder = LatencyRecorder()
        let client = BenchClient(http: http, base: base, recorder: recorder)
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { workers in
            for worker in 0..<concurrency {
                workers.addTask {
                    for index in stride(from: worker, to: pairs.count, by: concurrency) {
                        let (from, to) = pairs[index]
                        try await client.call(
                            "GET /api/v1/routes", .GET,
                            "/api/v1/routes?from=\(from.lat),\(from.lon)&to=\(to.lat),\(to.lon)", token: token)
                    }
                }
            }
            try await workers.waitForAll()
        }
        let seconds = (ContinuousClock.now - started).inSeconds
        for row in recorder.rows() {
            Console.line(
                String(
                    format:
                        "route API over HTTP, %d requests, %d concurrent: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms, %.0f requests/s",
                    row.count, concurrency, row.p50 * 1000, row.p95 * 1000, row.p99 * 1000, row.max * 1000,
                    Double(row.count) / seconds))
        }
    }
}
