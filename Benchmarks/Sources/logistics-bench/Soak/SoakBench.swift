import ArgumentParser
import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsServer
import RiderKit
import Synchronization
import TestSupport

/// `logistics-bench soak`: an hour of a city's steady day against one server in a child process. Riders send fixes,
/// customers watch their orders over sockets, and meanwhile orders are created, delivered and cancelled through the
/// API. Every minute it prints the server's resident memory and open descriptors; at the end, whether memory stayed
/// within ±10 % of the 10th minute's, descriptors stayed flat, and nothing was lost or answered 5xx.
struct SoakBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "An hour of steady load: memory and descriptors every minute, then lost fixes and 5xx.")

    @Option(help: "Riders, each sending one fix every --interval seconds.") var riders: Int = 4_000
    @Option(help: "Seconds between one rider's fixes (4,000 riders every 2 s: 2,000 fixes/s).") var interval: Double = 2
    @Option(help: "Customers watching orders in transit, one order each.") var customers: Int = 2_000
    @Option(help: "Minutes of load.") var minutes: Int = 60
    @Option(help: "Riders doing whole deliveries meanwhile (create, offer, accept, taps, code, delivered).")
    var deliveryRiders: Int = 8
    @Option(help: "API requests per second the delivering riders make, all together.") var deliveryRate: Double = 40
    @Option(help: "Orders created and cancelled per minute meanwhile.") var cancellationsPerMinute: Int = 30
    @Option(name: .customLong("database-url"), help: "PostgreSQL for the server instead of SQLite.")
    var databaseURL: String?

    func validate() throws {
        guard (1...50_000).contains(riders) else { throw ValidationError("--riders must be 1...50000") }
        guard (1...min(riders, 20_000)).contains(customers) else {
            throw ValidationError("--customers must be 1...min(riders, 20000)")
        }
        guard (0.5...60).contains(interval) else { throw ValidationError("--interval must be 0.5...60 seconds") }
        guard (2...720).contains(minutes) else { throw ValidationError("--minutes must be 2...720") }
        guard (0...200).contains(deliveryRiders) else { throw ValidationError("--delivery-riders must be 0...200") }
        guard deliveryRate > 0, deliveryRate <= 2_000 else { throw ValidationError("--delivery-rate must be 0...2000") }
        guard (0...6_000).contains(cancellationsPerMinute) else {
            throw ValidationError("--cancellations-per-minute must be 0...6000")
        }
        if let databaseURL, !(databaseURL.contains("@127.0.0.1") || databaseURL.contains("@localhost")) {
            throw ValidationError("--database-url must point at this machine")
        }
    }

    func run() async throws {
        let limit = FileDescriptors.raiseLimit()
        guard limit >= customers + riders / 10 + 512 else {
            throw Console.failure("\(customers) sockets need a higher file-descriptor limit; see `ulimit -Hn`")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-soak-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var schema: String?
        if let databaseURL { schema = try await IsolatedSchema.create(url: databaseURL, prefix: "soak").name }
        defer {
            if let databaseURL, let schema { Task { await IsolatedSchema(name: schema, url: databaseURL).drop() } }
        }
        let secret = UUID().uuidString + UUID().uuidString
        Console.line("Starting the server on \(databaseURL == nil ? "SQLite" : "PostgreSQL") ...")
        let server = try await BenchServerProcess.start(
            dataDirectory: directory.path, secret: secret, databaseURL: databaseURL, schema: schema, index: 0)
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        let tokens = await AccessTokenIssuer(secret: secret)
        let load = TrackingLoad(
            bases: [base], ports: [server.port], tokens: tokens, riders: riders, orders: customers,
            customers: customers, path: RiderPath(metresPerFix: 33, interval: interval))
        Console.line("Seeding \(customers) orders in transit ...")
        try await load.seed()
        Console.line("Opening \(customers) customer sockets ...")
        defer { load.stopGenerators() }
        try await load.connectCustomers(directory: directory)

        let samples = SoakSamples()
        let churn = SoakChurn(base: base, tokens: tokens)
        let seconds = minutes * 60
        let trafficCPU = TrafficCPU {
            TrackingBench.cpuSeconds(servers: [server.process.processIdentifier], load, postgres: databaseURL != nil)
        }
        let traffic = try await withThrowingTaskGroup(of: TrackingLoad.Traffic?.self) { group in
            group.addTask {
                try await load.drive(
                    seconds: seconds, interval: .milliseconds(Int64(interval * 1000)), connections: 128,
                    transport: .http, inFlight: 1, cpu: trafficCPU)
            }
            group.addTask {
                try await churn.deliver(riders: deliveryRiders, rate: deliveryRate, for: .seconds(seconds))
                return nil
            }
            group.addTask {
                try await churn.cancel(perMinute: cancellationsPerMinute, for: .seconds(seconds))
                return nil
            }
            group.addTask {
                for minute in 1...minutes {
                    try await Task.sleep(for: .seconds(60))
                    let sample = SoakSamples.Sample(
                        minute: minute, residentBytes: server.residentBytes(),
                        descriptors: Self.openDescriptors(server.process.processIdentifier))
                    samples.add(sample)
                    Console.line(
                        "minute \(minute): server \(sample.residentBytes / 1_048_576) MiB, "
                            + "\(sample.descriptors) descriptors; \(churn.summary)")
                }
                return nil
            }
            var traffic: TrackingLoad.Traffic?
            for try await result in group { if let result { traffic = result } }
            return traffic!
        }
        Console.line("Letting the last messages arrive ...")
        try await load.settle()
        let outcome = try await load.outcome()
        await load.shutdown()
        await churn.shutdown()
        report(traffic: traffic, outcome: outcome, samples: samples.all, churn: churn, cpu: trafficCPU.spent)
    }

    private func report(
        traffic: TrackingLoad.Traffic, outcome: TrackingLoad.Outcome, samples: [SoakSamples.Sample], churn: SoakChurn,
        cpu: CPUSpent
    ) {
        Console.line()
        Console.line(
            "store: \(databaseURL == nil ? "SQLite (WAL)" : "PostgreSQL"); riders: \(riders), a fix every \(interval) s; "
                + "customers: \(customers); \(minutes) min; machine: \(ProcessInfo.processInfo.activeProcessorCount) cores"
        )
        Console.line(
            "fixes: \(traffic.acknowledged) acknowledged, \(traffic.failed) failed, "
                + String(format: "%.0f fixes/s", Double(traffic.acknowledged) / traffic.seconds)
                + String(format: ", CPU: server %.2f cores", cpu.servers / traffic.seconds))
        Console.line(
            "customers: \(outcome.open) of \(customers) sockets held; lost \(outcome.lost), misordered "
                + "\(outcome.misordered), seq gaps \(outcome.gaps); "
                + String(
                    format: "send → receive p50 %.1f ms, p99 %.1f ms", outcome.later.p50 * 1000,
                    outcome.later.p99 * 1000))
        Console.line("meanwhile: \(churn.summary)")
        let settled = samples.filter { $0.minute >= 10 }
        if let reference = settled.first {
            let low = settled.map(\.residentBytes).min()!
            let high = settled.map(\.residentBytes).max()!
            let spread = Double(high - reference.residentBytes) / Double(reference.residentBytes) * 100
            let dip = Double(reference.residentBytes - low) / Double(reference.residentBytes) * 100
            Console.line(
                "memory from minute 10: \(reference.residentBytes / 1_048_576) MiB, then \(low / 1_048_576)–"
                    + "\(high / 1_048_576) MiB (" + String(format: "+%.1f %% / -%.1f %%", spread, dip) + "); "
                    + (spread <= 10 && dip <= 10 ? "within ±10 %" : "NOT within ±10 %"))
            let descriptors = settled.map(\.descriptors)
            Console.line("descriptors from minute 10: \(descriptors.min()!)–\(descriptors.max()!)")
        }
        Console.line(
            "5xx: \(churn.serverErrors) from the API meanwhile, \(traffic.failed) fixes refused or unanswered")
    }

    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }
}

/// The per-minute readings of the server.
final class SoakSamples: Sendable {
    struct Sample: Sendable {
        var minute: Int
        var residentBytes: Int
        var descriptors: Int
    }

    private let samples = Mutex<[Sample]>([])
    func add(_ sample: Sample) { samples.withLock { $0.append(sample) } }
    var all: [Sample] { samples.withLock { $0 } }
}

/// Orders coming and going beside the tracking traffic: whole deliveries by a few riders, and orders created and
/// cancelled by a dispatcher. Any 5xx is counted; a refusal of another kind is a bug in the bench or the server,
/// and stops the run.
final class SoakChurn: Sendable {
    let base: String
    let tokens: AccessTokenIssuer
    private let http: HTTPClient
    private let counts = Mutex<(delivered: Int, cancelled: Int, serverErrors: Int)>((0, 0, 0))

    init(base: String, tokens: AccessTokenIssuer) {
        self.base = base
        self.tokens = tokens
        http = HTTPClient(eventLoopGroupProvider: .singleton)
    }

    var serverErrors: Int { counts.withLock { $0.serverErrors } }
    var summary: String {
        counts.withLock { "\($0.delivered) delivered, \($0.cancelled) cancelled, \($0.serverErrors) 5xx" }
    }

    func shutdown() async { try? await http.shutdown() }

    /// Whole deliveries, paced, until `duration` has passed; the riders finish the one they are on.
    func deliver(riders: Int, rate: Double, for duration: Duration) async throws {
        guard riders > 0 else { return }
        let transport = TimedTransport(http: http, pacer: Pacer(requestsPerSecond: rate))
        let end = ContinuousClock.now + duration
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<riders {
                group.addTask {
                    // One rider all hour, as a fleet's riders are: new ones each delivery would grow the server's
                    // per-rider state with the run's length instead of with its fleet.
                    var load = DeliveryLoad(
                        base: self.base, transport: transport, tokens: self.tokens, riders: 1, deliveries: 1)
                    load.riderIds = [UUID()]
                    while ContinuousClock.now < end {
                        do {
                            let result = try await load.run { _ in }
                            self.counts.withLock { $0.delivered += result.completed }
                        } catch RiderAPIError.problem(let problem) where problem.status >= 500 {
                            self.counts.withLock { $0.serverErrors += 1 }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Orders created, made ready and cancelled, `perMinute` a minute.
    func cancel(perMinute: Int, for duration: Duration) async throws {
        guard perMinute > 0 else { return }
        let dispatcher = try await tokens.token(subject: UUID(), role: .dispatcher, ttl: 86_400)
        let office = OfficeAPI(
            baseURL: base, token: { dispatcher }, transport: HTTPRiderTransport(http: http), timeout: .seconds(30))
        let end = ContinuousClock.now + duration
        let pause = Duration.milliseconds(60_000 / perMinute)
        while ContinuousClock.now < end {
            do {
                let orderId = try await office.placeOrder(
                    ref: "SOAK", from: DeliveryLoad.store,
                    to: CustomerContact(
                        id: UUID(), name: "Bench Customer", phone: "+377 93 15 00 01", address: "Quai Antoine 1er",
                        location: DeliveryLoad.door))
                try await office.markReady(orderId: orderId)
                try await office.cancel(orderId: orderId, reason: "soak: the customer changed their mind")
                counts.withLock { $0.cancelled += 1 }
            } catch RiderAPIError.problem(let problem) where problem.status >= 500 {
                counts.withLock { $0.serverErrors += 1 }
            }
            try await Task.sleep(for: pause)
        }
    }
}
