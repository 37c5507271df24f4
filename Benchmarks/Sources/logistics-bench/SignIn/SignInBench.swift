import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import LogisticsCore
import LogisticsServer
import LogisticsStore
import RiderKit
import Synchronization
import TestSupport

/// `logistics-bench signin`: people signing in by phone at a steady rate against an in-process server, then
/// refreshing. The codes are read from the `log` provider's lines (the server's logger is the bench's), so nothing
/// leaves the machine. `GET /health/live` at the same rate in the same run is the floor to compare with.
struct SignInBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signin",
        abstract: "Sign-ins by phone and code at a steady rate, then refreshes; p50/p95/p99 beside /health/live.")

    @Option(help: "People who sign in (each once, then refreshes once).") var people: Int = 1000
    @Option(help: "Sign-ins (and refreshes) started per second, spread evenly (open loop).") var rate: Double = 100
    @Option(name: .customLong("database-url"), help: "PostgreSQL instead of SQLite.") var databaseURL: String?
    @Flag(help: "Exit with failure when a target in Benchmarks/Thresholds/logistics-bench/signin.json is missed.")
    var holdToTargets = false

    func validate() throws {
        guard (10...100_000).contains(people) else { throw ValidationError("--people must be 10...100000") }
        guard rate > 0, rate <= 5_000 else { throw ValidationError("--rate must be more than 0 and at most 5000") }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-signin-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = InProcessServer.configuration(directory: directory)
        configuration.database.url = databaseURL
        configuration.database.poolSize = 16
        configuration.signIn.codeRequestsPerAddress = 1_000_000
        var schema: String?
        if let databaseURL {
            schema = try await IsolatedSchema.create(url: databaseURL, prefix: "signin").name
            configuration.database.schema = schema
        }
        let codes = KeyedStrings()
        var logger = Logger(label: "bench-signin") { _ in CodeCapture(codes: codes) }
        logger.logLevel = .notice
        let (ports, reporter) = AsyncStream.makeStream(of: Int.self)
        let store = databaseURL == nil ? "SQLite (WAL)" : "PostgreSQL"
        Console.line("Starting an in-process server on \(store) ...")
        let built = try await buildApplication(configuration, logger: logger) { port in
            reporter.yield(port)
            reporter.finish()
        }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await built.application.runService() }
                for await port in ports {
                    try await measure(base: "http://127.0.0.1:\(port)", services: built.components, codes: codes)
                }
                group.cancelAll()
            }
        } catch {
            if let schema, let databaseURL { await IsolatedSchema(name: schema, url: databaseURL).drop() }
            throw error
        }
        if let schema, let databaseURL { await IsolatedSchema(name: schema, url: databaseURL).drop() }
    }

    private func phone(_ index: Int) -> String { "+3779\(String(format: "%07d", index))" }

    private func measure(base: String, services: ServerComponents, codes: KeyedStrings) async throws {
        let now = Date()
        Console.line("Adding \(people) riders with phones ...")
        for index in 0..<people {
            try await services.repository.addPerson(
                Person(
                    id: UUID(), role: .rider, name: "Bench Rider \(index)", phone: phone(index), vehicle: .bicycle,
                    createdAt: now, updatedAt: now), createdBy: UUID(), invitation: nil, now: now)
        }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { Task { try? await http.shutdown() } }
        let recorder = LatencyRecorder()
        let floor = LatencyRecorder()

        Console.line("Asking for \(people) codes at \(Int(rate))/s ...")
        try await paced(http: http, base: base, recorder: recorder, floor: floor) { signIn, index in
            try await signIn.requestCode(phone: phone(index))
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while codes.count < people, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        guard codes.count >= people else {
            throw Console.failure("only \(codes.count) of \(people) codes came out of the outbox within 60 s")
        }
        Console.line("Signing \(people) people in at \(Int(rate))/s ...")
        let refreshTokens = KeyedStrings()
        let cpuBefore = ProcessCPU.seconds(pid: getpid())
        let signInStarted = ContinuousClock.now
        try await paced(http: http, base: base, recorder: recorder, floor: floor) { signIn, index in
            let tokens = try await signIn.signIn(phone: phone(index), code: codes.value(for: phone(index)) ?? "")
            refreshTokens.keep(tokens.refreshToken, for: "\(index)")
        }
        let signInSeconds = (ContinuousClock.now - signInStarted).inSeconds
        let cpuSignIn = ProcessCPU.seconds(pid: getpid()) - cpuBefore
        Console.line("Refreshing \(people) sessions at \(Int(rate))/s ...")
        let tokens = refreshTokens
        try await paced(http: http, base: base, recorder: recorder, floor: floor) { signIn, index in
            guard let token = tokens.value(for: "\(index)") else { return }
            _ = try await signIn.refresh(token)
        }
        Console.line()
        Console.line(
            "\(people) people at \(Int(rate))/s offered; sign-ins took \(String(format: "%.1f", signInSeconds)) s, "
                + "this process (server and generator) used \(String(format: "%.1f", cpuSignIn * 1000 / Double(people))) ms CPU per sign-in"
        )
        LatencyRecorder.printTable(recorder.rows() + floor.rows())
        let missed = try Thresholds.named("signin").check(recorder.rows())
        if holdToTargets, !missed.isEmpty {
            throw Console.failure("targets missed: " + missed.joined(separator: "; "))
        }
    }

    /// `people` calls started at `rate` per second, each on its own task, with `GET /health/live` sampled at the
    /// same rate beside them.
    private func paced(
        http: HTTPClient, base: String, recorder: LatencyRecorder, floor: LatencyRecorder,
        _ call: @escaping @Sendable (SignInAPI, Int) async throws -> Void
    ) async throws {
        let pacer = Pacer(requestsPerSecond: rate)
        let client = SignInAPI(
            baseURL: base, transport: TimedTransport(http: http, recorder: recorder), timeout: .seconds(30))
        let probe = TimedTransport(http: http, recorder: floor)
        let failures = KeyedStrings()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<people {
                await pacer.wait()
                group.addTask {
                    do { try await call(client, index) } catch { failures.keep("\(error)", for: "\(index)") }
                }
                if index.isMultiple(of: 2) {
                    group.addTask { _ = try? await probe.health(base) }
                }
            }
        }
        if failures.count > 0 { Console.line("  \(failures.count) calls failed") }
    }
}

/// Strings by key, shared between tasks: the codes the `log` provider "sent" by phone, refresh tokens, failures.
final class KeyedStrings: Sendable {
    private let values = Mutex<[String: String]>([:])
    var count: Int { values.withLock { $0.count } }
    func value(for key: String) -> String? { values.withLock { $0[key] } }
    func keep(_ value: String, for key: String) { values.withLock { $0[key] = value } }
}

/// A log handler that keeps what the `log` provider writes and drops everything else.
struct CodeCapture: LogHandler {
    let codes: KeyedStrings
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .notice

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard "\(event.message)" == TextMessageLog.message, let to = event.metadata?["to"].map({ "\($0)" }),
            let text = event.metadata?["text"].map({ "\($0)" }),
            let range = text.range(of: #"[0-9]{6}"#, options: .regularExpression)
        else { return }
        codes.keep(String(text[range]), for: to)
    }
}
