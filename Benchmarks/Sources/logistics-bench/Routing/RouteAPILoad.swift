import Foundation
import Logging
import LogisticsCore
import LogisticsServer
import NIOCore
import RoadRouting

/// `GET /api/v1/routes` end to end against an in-process server with the map loaded: what a rider's app waits for.
/// With an `osrm-routed` beside it, the same pairs go to OSRM's route service with steps and full geometry, from the
/// same client, the two servers taking turns so both see the same machine.
enum RouteAPILoad {
    /// Where the peer routing service listens.
    struct Peer {
        var host: String
        var port: Int
    }

    static func measure(map: String, requests: Int, concurrency counts: [Int], rounds: Int, osrm: Peer?)
        async throws
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = InProcessServer.configuration(directory: directory)
        configuration.routing.mapPath = map
        let logger = InProcessServer.logger
        let (ports, reporter) = AsyncStream.makeStream(of: Int.self)
        let built = try await buildApplication(configuration, logger: logger) { port in
            reporter.yield(port)
            reporter.finish()
        }
        let graph = (built.components.navigator.provider as? BuiltinDirections)?.maps[.motorcycle]?.graph
        guard let graph else { throw Console.failure("the map did not load") }
        let nodes = graph.routableNodes
        var random = SeededGenerator(state: 5)
        let pairs = (0..<requests).map { _ in
            (
                graph.coordinate(nodes.randomElement(using: &random)!),
                graph.coordinate(nodes.randomElement(using: &random)!)
            )
        }
        let token = try await AccessTokenIssuer(secret: configuration.tokens.jwtSecret!).token(
            subject: UUID(), role: .dispatcher, now: Date())
        let ours = pairs.map { from, to in
            "GET /api/v1/routes?from=\(from.lat),\(from.lon)&to=\(to.lat),\(to.lon) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(token)\r\n\r\n"
        }
        // What our answer carries: every step with its maneuver, and the whole line as polyline6.
        let theirs = pairs.map { from, to in
            "GET /route/v1/driving/\(from.lon),\(from.lat);\(to.lon),\(to.lat)?steps=true&overview=full"
                + "&geometries=polyline6 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        }
        var results: [Result] = []
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await built.application.runService() }
            for await port in ports {
                for concurrency in counts {
                    for _ in 0..<rounds {
                        results.append(
                            try await measure(
                                server: "ours", host: "127.0.0.1", port: port, requests: ours, concurrency: concurrency
                            ))
                        if let osrm {
                            results.append(
                                try await measure(
                                    server: "OSRM", host: osrm.host, port: osrm.port, requests: theirs,
                                    concurrency: concurrency))
                        }
                    }
                }
            }
            group.cancelAll()
        }
        if osrm != nil { compare(results, counts: counts) }
    }

    struct Result {
        var server: String
        var concurrency: Int
        var p50: Double
        var requestsPerSecond: Double
    }

    /// Each client has its own keep-alive connection and one request in flight. Answers are checked for their
    /// status, not parsed: parsing every route took CPU from the server it measures.
    private static func measure(server: String, host: String, port: Int, requests: [String], concurrency: Int)
        async throws -> Result
    {
        let recorder = LatencyRecorder()
        let client: KeepAliveClient
        do {
            client = try await KeepAliveClient.connect(host: host, port: port, count: concurrency)
        } catch {
            throw Console.failure("\(server) at \(host):\(port) did not accept a connection: is it running?")
        }
        let buffers = requests.map { ByteBuffer(string: $0) }
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { workers in
            for worker in 0..<concurrency {
                workers.addTask {
                    for index in stride(from: worker, to: buffers.count, by: concurrency) {
                        let began = ContinuousClock.now
                        let status = await client.send(buffers[index])
                        guard let status else { throw Console.failure("\(server): the connection failed") }
                        // OSRM answers 400 NoRoute where its car profile cannot join the two points; that is an
                        // answer, timed like the others, and counted.
                        guard status == 200 || (server == "OSRM" && status == 400) else {
                            throw Console.failure("\(server) answered \(status)")
                        }
                        if status != 200 { recorder.fail("route") }
                        recorder.record("route", seconds: (ContinuousClock.now - began).inSeconds)
                    }
                }
            }
            try await workers.waitForAll()
        }
        let seconds = (ContinuousClock.now - started).inSeconds
        await client.close()
        let row = recorder.rows()[0]
        let perSecond = Double(row.count) / seconds
        Console.line(
            String(
                format:
                    "%@ route with steps over HTTP, %d requests, %d concurrent: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms, %.0f requests/s%@",
                server, row.count, concurrency, row.p50 * 1000, row.p95 * 1000, row.p99 * 1000, row.max * 1000,
                perSecond, row.failures > 0 ? " (\(row.failures) without a route)" : ""))
        return Result(server: server, concurrency: concurrency, p50: row.p50, requestsPerSecond: perSecond)
    }

    /// The best round of each server at each client count: noise on a shared machine only ever slows a round.
    private static func compare(_ results: [Result], counts: [Int]) {
        for concurrency in counts {
            let best = { (server: String) in
                results.filter { $0.server == server && $0.concurrency == concurrency }
                    .max { $0.requestsPerSecond < $1.requestsPerSecond }
            }
            guard let ours = best("ours"), let theirs = best("OSRM") else { continue }
            Console.line(
                String(
                    format:
                        "%d concurrent, best rounds: ours %.0f requests/s (p50 %.2f ms), OSRM %.0f (p50 %.2f ms): %.2f×",
                    concurrency, ours.requestsPerSecond, ours.p50 * 1000, theirs.requestsPerSecond, theirs.p50 * 1000,
                    ours.requestsPerSecond / theirs.requestsPerSecond))
        }
    }
}
