import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import LogisticsCore
import LogisticsServer
import NIOHTTP1

@main
struct LogisticsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logistics-bench",
        abstract: "Load benchmarks against a server on localhost (not tests: they print figures).",
        subcommands: [
            DeliveryBench.self, RoutingBench.self, MatchingBench.self, TrackingBench.self, DispatchBench.self,
            CustomisationBench.self, EtaBench.self, FollowersBench.self, SoakBench.self, SignInBench.self,
            CustomerMessagesBench.self,
        ])
}

struct DeliveryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delivery",
        abstract: "N concurrent simulated riders doing whole deliveries; per-endpoint p50/p95/p99 and requests/s.")

    @Option(help: "A running server (http://127.0.0.1:PORT). Without it, one is started in-process on a free port.")
    var server: String?
    @Option(help: "Concurrent riders.") var riders: Int = 16
    @Option(help: "Deliveries to complete in total.") var deliveries: Int = 400
    @Option(help: "Offered load in requests/s, spread evenly (open loop). 0 = as fast as the riders can go.")
    var rate: Double = 350
    @Option(name: .customLong("database-url"), help: "For the in-process server: PostgreSQL instead of SQLite.")
    var databaseURL: String?
    @Option(name: .customLong("data-dir"), help: "Data dir whose jwt-secret signs tokens (with --server).")
    var dataDirectory: String?
    @Flag(help: "Exit with failure when a target in Benchmarks/Thresholds/logistics-bench/delivery.json is missed.")
    var holdToTargets = false

    func validate() throws {
        guard (1...500).contains(riders) else { throw ValidationError("--riders must be 1...500") }
        guard rate >= 0, rate <= 20_000 else { throw ValidationError("--rate must be 0...20000") }
        guard (1...100_000).contains(deliveries) else { throw ValidationError("--deliveries must be 1...100000") }
        if let server,
            !(server.hasPrefix("http://127.") || server.hasPrefix("http://localhost")
                || server.hasPrefix("http://[::1]"))
        {
            throw ValidationError("--server must be on this machine (loopback)")
        }
    }

    func run() async throws {
        if let server {
            var configuration = try ServerConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
            if let dataDirectory { configuration.dataDirectory = dataDirectory }
            var logger = Logger(label: "bench")
            logger.logLevel = .error
            let secret = try JWTSecret.resolve(configuration, logger: logger)
            try await measure(base: server, secret: secret, store: "external server")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = InProcessServer.configuration(directory: directory)
        configuration.database.url = databaseURL
        configuration.database.poolSize = 16
        let logger = InProcessServer.logger
        let (ports, reporter) = AsyncStream.makeStream(of: Int.self)
        Console.line("Starting an in-process server on \(databaseURL == nil ? "SQLite" : "PostgreSQL") ...")
        let built = try await buildApplication(configuration, logger: logger) { port in
            reporter.yield(port)
            reporter.finish()
        }
        let store = databaseURL == nil ? "SQLite (WAL)" : "PostgreSQL"
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await built.application.runService() }
            for await port in ports {
                try await measure(
                    base: "http://127.0.0.1:\(port)", secret: configuration.tokens.jwtSecret!, store: store)
            }
            group.cancelAll()
        }
    }

    private func measure(base: String, secret: String, store: String) async throws {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: riders + 4)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let recorder = LatencyRecorder()
        let floor = LatencyRecorder()
        let load = DeliveryLoad(
            base: base,
            transport: TimedTransport(
                http: http, recorder: recorder, pacer: rate > 0 ? Pacer(requestsPerSecond: rate) : nil),
            tokens: await AccessTokenIssuer(secret: secret), riders: riders, deliveries: deliveries)
        Console.line(
            "Driving \(riders) riders through \(deliveries) deliveries against \(base) (\(store)), "
                + (rate > 0 ? "offered load \(Int(rate)) requests/s ..." : "as fast as they can ..."))
        let finished = DeliveryCounter()
        let result: DeliveryLoad.Result
        do {
            result = try await withThrowingTaskGroup(of: DeliveryLoad.Result?.self) { group in
                group.addTask {
                    try await load.run { finished.add($0) }
                }
                // The floor: the cheapest endpoint, sampled throughout the same run.
                group.addTask {
                    let probe = TimedTransport(http: http, recorder: floor)
                    while !Task.isCancelled {
                        _ = try? await probe.health(base)
                        try? await Task.sleep(for: .milliseconds(5))
                    }
                    return nil
                }
                group.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(for: .seconds(2))
                        Console.line("  \(finished.value)/\(deliveries) deliveries")
                    }
                    return nil
                }
                let result = try await group.next()!!
                group.cancelAll()
                return result
            }
        } catch {
            try? await http.shutdown()
            throw Console.failure("benchmark stopped: \(error)")
        }
        try await http.shutdown()
        try report(result, recorder: recorder, floor: floor, store: store)
    }

    private func report(_ result: DeliveryLoad.Result, recorder: LatencyRecorder, floor: LatencyRecorder, store: String)
        throws
    {
        let seconds = result.elapsed.inSeconds
        let requests = recorder.total
        Console.line()
        Console.line(
            "store: \(store); riders: \(riders); deliveries completed: \(result.completed) in \(String(format: "%.1f", seconds)) s"
        )
        Console.line(
            "mixed load: \(requests) requests, \(String(format: "%.0f", Double(requests) / seconds)) requests/s")
        Console.line()
        LatencyRecorder.printTable(recorder.rows() + floor.rows())
        let missed = try Thresholds.named("delivery").check(recorder.rows())
        // The last line, for scripts: the same shape `logistics simulate` ends with.
        Console.line("deliveries completed: \(result.completed)")
        if holdToTargets, !missed.isEmpty {
            throw Console.failure("targets missed: " + missed.joined(separator: "; "))
        }
    }
}
