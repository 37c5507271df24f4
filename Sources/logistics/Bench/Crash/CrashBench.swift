import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import LogisticsServer
import LogisticsStore

/// `logistics bench crash`: riders deliver against a real server process, which is killed with SIGKILL at a
/// random moment and started again; every write the clients saw acknowledged must be there afterwards, no
/// order half-changed, no gap in any order's event sequence.
struct CrashBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash",
        abstract: "kill -9 the server under delivery load, restart it, and look for every acknowledged write.")

    @Option(help: "Kill-and-restart rounds.") var rounds: Int = 20
    @Option(help: "Concurrent riders.") var riders: Int = 8
    @Option(help: "Offered load in requests/s (open loop); 0 = as fast as the riders can go.") var rate: Double = 300
    @Option(help: "The kill comes at a random moment up to this many seconds after a round's first acknowledged write.")
    var maxSeconds: Double = 3
    @Option(
        name: .customLong("database-url"), help: "PostgreSQL (a schema of its own, dropped after) instead of SQLite.")
    var databaseURL: String?

    func validate() throws {
        guard (1...500).contains(rounds) else { throw ValidationError("--rounds must be 1...500") }
        guard (1...200).contains(riders) else { throw ValidationError("--riders must be 1...200") }
        guard maxSeconds >= 0.5, maxSeconds <= 60 else { throw ValidationError("--max-seconds must be 0.5...60") }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-crash-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = UUID().uuidString + UUID().uuidString
        var environment = [
            "LOGISTICS_JWT_SECRET": secret, "LOGISTICS_RATE_LIMIT_ADDRESS": "off", "LOGISTICS_RATE_LIMIT_CALLER": "off",
            "LOGISTICS_RATE_LIMIT_FIXES": "off", "LOGISTICS_CONNECTIONS_PER_ADDRESS": "off", "LOG_LEVEL": "error",
        ]
        var schema: String?
        if let databaseURL { schema = try await BenchSchema.create(prefix: "crash", url: databaseURL) }
        if let databaseURL, let schema {
            environment["DATABASE_URL"] = databaseURL
            environment["LOGISTICS_DATABASE_SCHEMA"] = schema
        }
        let store = databaseURL == nil ? "SQLite" : "PostgreSQL"
        Console.line("Killing the server (\(store)) \(rounds) times under \(riders) delivering riders ...")
        let tokens = await AccessTokenIssuer(secret: secret)
        var total = CrashCheck.Findings()
        do {
            for round in 1...rounds {
                let findings = try await runRound(directory: directory.path, environment: environment, tokens: tokens)
                total.add(findings)
                Console.line("  round \(round)/\(rounds): \(findings.summary)")
            }
        } catch {
            if let databaseURL, let schema { await BenchSchema.drop(schema, url: databaseURL) }
            throw Console.failure("crash bench stopped: \(error)")
        }
        if let databaseURL, let schema { await BenchSchema.drop(schema, url: databaseURL) }
        Console.line(
            "\(total.lost) lost of \(total.acknowledged) acknowledged writes (\(total.orders) orders) over \(rounds) "
                + "kill -9 rounds on \(store); \(total.gaps) sequence gaps, \(total.halfDone) half-done orders")
        if !total.clean { throw ExitCode.failure }
    }

    private func runRound(directory: String, environment: [String: String], tokens: AccessTokenIssuer) async throws
        -> CrashCheck.Findings
    {
        let server = try ChildServer(dataDirectory: directory, environment: environment)
        try await server.start()
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let journal = AcknowledgedWrites()
        let load = DeliveryLoad(
            client: BenchClient(
                http: http, base: "http://127.0.0.1:\(server.port)", recorder: nil,
                pacer: rate > 0 ? Pacer(requestsPerSecond: rate) : nil),
            tokens: tokens, riders: riders, deliveries: 1_000_000, journal: journal)
        let running = Task { _ = try? await load.run { _ in } }
        // The random moment counts from the first acknowledged write, so the kill always meets the load running
        // (on a loaded machine setting up riders and orders once took longer than a short round).
        let started = ContinuousClock.now
        while journal.snapshot.isEmpty, ContinuousClock.now - started < .seconds(30) {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(Int.random(in: 300...Int(maxSeconds * 1000))))
        server.kill(SIGKILL)
        _ = await server.waitForExit()
        running.cancel()
        await running.value
        try? await http.shutdown()

        let restarted = try ChildServer(dataDirectory: directory, environment: environment)
        try await restarted.start()
        defer { restarted.kill(SIGKILL) }
        let findings = try await CrashCheck(port: restarted.port, tokens: tokens).check(journal)
        restarted.kill(SIGTERM)
        _ = await restarted.waitForExit()
        return findings
    }
}
