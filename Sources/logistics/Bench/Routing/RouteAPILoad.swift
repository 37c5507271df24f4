import Foundation
import Logging
import LogisticsCore
import LogisticsServer
import NIOCore
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
                for concurrency in counts {
                    try await measure(port: port, pairs: pairs, token: token, concurrency: concurrency)
                }
            }
            group.cancelAll()
        }
    }

    /// Each client has its own keep-alive connection and one request in flight. Answers are checked for their
    /// status, not parsed: parsing every route took a quarter of the machine's CPU from the server it measures.
    private static func measure(port: Int, pairs: [(GeoPoint, GeoPoint)], token: String, concurrency: Int)
        async throws
    {
        let recorder = LatencyRecorder()
        let client = try await KeepAliveClient.connect(host: "127.0.0.1", port: port, count: concurrency)
        let requests = pairs.map { from, to in
            "GET /api/v1/routes?from=\(from.lat),\(from.lon)&to=\(to.lat),\(to.lon) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(token)\r\n\r\n"
        }
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { workers in
            for worker in 0..<concurrency {
                workers.addTask {
                    for index in stride(from: worker, to: requests.count, by: concurrency) {
                        let began = ContinuousClock.now
                        let status = await client.send(ByteBuffer(string: requests[index]))
                        guard status == 200 else {
                            throw Console.failure("GET /api/v1/routes answered \(status.map(String.init) ?? "nothing")")
                        }
                        recorder.record("GET /api/v1/routes", seconds: (ContinuousClock.now - began).inSeconds)
                    }
                }
            }
            try await workers.waitForAll()
        }
        let seconds = (ContinuousClock.now - started).inSeconds
        await client.close()
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
