import ArgumentParser
import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsServer
import NIOHTTP1
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `logistics-bench tracking`: server instances in child processes (so their memory can be measured alone),
/// O orders in transit, C customer sockets following them, R riders sending a fix every 5 s for D seconds.
struct TrackingBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracking",
        abstract: "Live-tracking load over real WebSockets on localhost: sockets held, memory per socket, "
            + "fixes/s, rider-to-customer latency, lost and misordered messages.")

    @Option(help: "Customer sockets.") var customers: Int = 10_000
    @Option(help: "Riders, each sending one fix every --interval seconds (2,000 fixes/s at 10,000 and 5 s).")
    var riders: Int = 10_000
    @Option(help: "Seconds between one rider's fixes.") var interval: Double = 5
    @Option(help: "How riders send fixes: http (shared keep-alive connections) or socket (one each).")
    var fixesOver: TrackingLoad.Transport = .http
    @Option(
        help: """
            Over sockets, how many of a rider's messages may wait for their acks: 1 is a phone that waits for each \
            ack; more is one that sends each fix as it comes while the server commits the ones before.
            """)
    var inFlight: Int = 1
    @Option(help: "Orders in transit; customers are spread over them.")
    var orders: Int = 1_000
    @Option(
        help: """
            How far a rider moves between fixes. At 33 (the default) every fix is kept in the history; a rider at \
            6.6 m/s sending every second moves 6.6, and the history keeps about one fix in four.
            """)
    var metresPerFix: Double = 33
    @Option(help: "Seconds of rider traffic.") var duration: Int = 30
    @Option(help: "Server instances (2 needs --database-url).") var instances: Int = 1
    @Option(help: "Keep-alive connections the riders share per instance, one request in flight on each.")
    var connections: Int = 128
    @Option(name: .customLong("database-url"), help: "PostgreSQL for the servers instead of SQLite.")
    var databaseURL: String?
    @Option(help: "Dispatcher sockets that never read (on the first instance), beside the customers.")
    var silent: Int = 0
    @Option(help: "Load-generator processes sharing the customers' sockets (one holds at most ~20,000 descriptors).")
    var generators: Int = 1

    func validate() throws {
        guard (1...4).contains(generators) else { throw ValidationError("--generators must be 1...4") }
        guard (1...20_000 * generators).contains(customers) else {
            throw ValidationError("--customers must be 1...\(20_000 * generators) with \(generators) generator(s)")
        }
        guard (1...50_000).contains(riders) else { throw ValidationError("--riders must be 1...50000") }
        guard (1...min(riders, customers)).contains(orders) else {
            throw ValidationError("--orders must be 1...min(riders, customers)")
        }
        guard (0.5...500).contains(metresPerFix) else { throw ValidationError("--metres-per-fix must be 0.5...500") }
        guard (1...8).contains(inFlight) else { throw ValidationError("--in-flight must be 1...8") }
        guard (0.5...60).contains(interval) else { throw ValidationError("--interval must be 0.5...60 seconds") }
        guard (5...600).contains(duration) else { throw ValidationError("--duration must be 5...600 seconds") }
        guard (1...2).contains(instances) else { throw ValidationError("--instances must be 1 or 2") }
        if instances > 1 && databaseURL == nil {
            throw ValidationError("several instances share PostgreSQL: add --database-url")
        }
        if let databaseURL, !(databaseURL.contains("@127.0.0.1") || databaseURL.contains("@localhost")) {
            throw ValidationError("--database-url must point at this machine")
        }
    }

    func run() async throws {
        let limit = FileDescriptors.raiseLimit()
        Console.line("file descriptors: soft limit raised to \(limit) (each socket needs one here and one in a server)")
        // This process holds its share of the customers and every rider's socket; the others hold the rest.
        let share = (customers + generators - 1) / generators
        let sockets = share + (fixesOver == .socket ? riders : riders / 10) + 256
        if limit < sockets {
            throw Console.failure(
                "\(sockets) sockets need a higher file-descriptor limit; run `ulimit -Hn` to see it")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-bench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var schema: String?
        if let databaseURL { schema = try await IsolatedSchema.create(url: databaseURL, prefix: "tracking").name }
        do {
            try await measure(directory: directory, schema: schema)
        } catch {
            if let databaseURL, let schema { await IsolatedSchema(name: schema, url: databaseURL).drop() }
            throw error
        }
        if let databaseURL, let schema { await IsolatedSchema(name: schema, url: databaseURL).drop() }
    }

    /// The servers, the customers' sockets and the riders' traffic, on a fresh schema when on PostgreSQL.
    private func measure(directory: URL, schema: String?) async throws {
        let secret = UUID().uuidString + UUID().uuidString
        var servers: [BenchServerProcess] = []
        defer { for server in servers { server.stop() } }
        for index in 0..<instances {
            Console.line("Starting server instance \(index + 1) on \(databaseURL == nil ? "SQLite" : "PostgreSQL") ...")
            servers.append(
                try await BenchServerProcess.start(
                    dataDirectory: directory.path, secret: secret, databaseURL: databaseURL, schema: schema,
                    index: index))
        }
        let load = TrackingLoad(
            bases: servers.map { "http://127.0.0.1:\($0.port)" }, ports: servers.map(\.port),
            tokens: await AccessTokenIssuer(secret: secret), riders: riders, orders: orders, customers: customers,
            path: RiderPath(metresPerFix: metresPerFix, interval: interval))

        Console.line("Seeding \(orders) orders in transit ...")
        try await load.seed()
        let before = servers.reduce(0) { $0 + $1.residentBytes() }
        Console.line(
            "Opening \(customers) customer sockets" + (generators > 1 ? " from \(generators) processes" : "") + " ...")
        defer { load.stopGenerators() }
        try await load.connectCustomers(generators: generators, directory: directory)
        try await Task.sleep(for: .seconds(2))
        let after = servers.reduce(0) { $0 + $1.residentBytes() }
        var stuck: SilentSockets?
        if silent > 0 {
            Console.line("Opening \(silent) dispatcher sockets that never read ...")
            let dispatcher = try await load.tokens.token(subject: UUID(), role: .dispatcher, ttl: 86_400)
            stuck = try await SilentSockets.open(count: silent, port: servers[0].port, token: dispatcher)
            // Their upgrades and sign-ins are done before the riders start, as the customers' are.
            try await Task.sleep(for: .seconds(2))
        }
        let running = servers
        let silentCount = stuck == nil ? 0 : silent
        let sampler = Task {
            var peak = 0
            var samples: [Int] = []
            // The second of the run by which the server had cut every silent socket off.
            var allCutBy: Int?
            while !Task.isCancelled {
                let bytes = running.reduce(0) { $0 + $1.residentBytes() }
                peak = max(peak, bytes)
                samples.append(bytes)
                if silentCount > 0, allCutBy == nil,
                    (try? await SilentSockets.cutOffByServer(port: running[0].port)) == silentCount
                {
                    allCutBy = samples.count
                }
                try? await Task.sleep(for: .seconds(1))
            }
            return (peak, samples, allCutBy)
        }
        let serverPids = servers.map(\.process.processIdentifier)
        let withPostgres = databaseURL != nil
        let trafficCPU = TrafficCPU { Self.cpuSeconds(servers: serverPids, load, postgres: withPostgres) }
        let traffic = try await load.drive(
            seconds: duration, interval: .milliseconds(Int64(interval * 1000)), connections: connections,
            transport: fixesOver, inFlight: inFlight, cpu: trafficCPU)
        let cpu = trafficCPU.spent
        sampler.cancel()
        let (peak, samples, allCutBy) = await sampler.value
        Console.line("Letting the last messages arrive ...")
        try await load.settle()
        let outcome = try await load.outcome()
        let cutOff = stuck == nil ? nil : try await SilentSockets.cutOffByServer(port: servers[0].port)
        stuck?.close()
        await load.shutdown()

        Console.line()
        Console.line(
            "store: \(databaseURL == nil ? "SQLite (WAL)" : "PostgreSQL"); instances: \(instances); "
                + "riders: \(riders), a fix every \(interval) s, \(metresPerFix) m apart, over \(fixesOver.rawValue)\(fixesOver == .socket ? " (\(inFlight) unanswered at most)" : ""); orders in transit: \(orders); machine: \(ProcessInfo.processInfo.activeProcessorCount) cores"
        )
        Console.line("sockets held at the end: \(outcome.open) of \(customers)")
        Console.line(
            "server memory: \(after / 1_048_576) MiB with sockets, \(before / 1_048_576) MiB before; "
                + String(format: "%.1f KiB per socket", Double(after - before) / Double(customers) / 1024))
        Console.line(
            "fixes: \(traffic.acknowledged) acknowledged, \(traffic.failed) failed, "
                + String(format: "%.0f fixes/s", Double(traffic.acknowledged) / traffic.seconds)
                + String(format: "; ingest p50 %.1f ms, p99 %.1f ms", traffic.ackP50 * 1000, traffic.ackP99 * 1000))
        Console.line(
            "rider send → customer receive: \(outcome.deliveries) messages, "
                + String(
                    format: "p50 %.1f ms, p99 %.1f ms, max %.1f ms", outcome.latency.p50 * 1000,
                    outcome.latency.p99 * 1000,
                    outcome.latency.max * 1000))
        Console.line(
            String(
                format: "  after the first 5 s: "
                    + "p50 %.1f ms, p99 %.1f ms, max %.1f ms", outcome.later.p50 * 1000, outcome.later.p99 * 1000,
                outcome.later.max * 1000))
        Console.line(
            "  p99 per 10 s of the run: "
                + outcome.byWindow.map { String(format: "%.1f", $0.p99 * 1000) }.joined(separator: ", ") + " ms")
        Console.line(
            "lost: \(outcome.lost) (sockets whose last position is not their rider's last fix), "
                + "misordered or duplicated: \(outcome.misordered), seq gaps: \(outcome.gaps)")
        let fixes = Double(max(1, traffic.acknowledged))
        Console.line(
            String(
                format: "CPU during the traffic: servers %.2f cores (%.3f ms a fix), generators %.2f cores",
                cpu.servers / traffic.seconds, cpu.servers * 1000 / fixes, cpu.generators / traffic.seconds)
                + (databaseURL == nil
                    ? ""
                    : String(
                        format: ", PostgreSQL %.2f cores (%.3f ms a fix)", cpu.postgres / traffic.seconds,
                        cpu.postgres * 1000 / fixes)))
        let quarters = stride(from: 0, to: samples.count, by: max(1, samples.count / 4)).map { samples[$0] / 1_048_576 }
        Console.line(
            "server memory during the traffic: peak \(peak / 1_048_576) MiB; every quarter of the run: "
                + quarters.map { "\($0) MiB" }.joined(separator: ", "))
        if let cutOff {
            Console.line(
                "dispatcher sockets that never read: \(silent) opened, \(cutOff) cut off by the server for falling "
                    + "behind (its websocket_cut_off_total)"
                    + (allCutBy.map { ", all of them within \($0) s of the riders starting" } ?? ""))
        }
        // The figures mean nothing if anything was lost on the way: such a run fails, so CI can hold it to that.
        let broken = [
            (customers - outcome.open, "customer sockets dropped"), (traffic.failed, "fixes refused"),
            (outcome.lost, "sockets behind their rider"), (outcome.misordered, "messages misordered or duplicated"),
            (outcome.gaps, "sequence gaps"),
        ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        if !broken.isEmpty { throw Console.failure("the run lost what it measures: " + broken.joined(separator: ", ")) }
    }
}

extension TrackingLoad.Transport: ExpressibleByArgument {}

/// Raising `RLIMIT_NOFILE` to the hard limit; child processes inherit it.
enum FileDescriptors {
    static func raiseLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(limit.rlim_cur)
    }
}

/// `logistics serve` in a child process (the one LOGISTICS_BINARY names, or the one built beside this bench), with its
/// log in the data directory.
final class BenchServerProcess: Sendable {
    let process: Process
    let port: Int

    private init(process: Process, port: Int) {
        self.process = process
        self.port = port
    }

    static func start(dataDirectory: String, secret: String, databaseURL: String?, schema: String?, index: Int)
        async throws
        -> BenchServerProcess
    {
        let port = try freePort()
        let process = Process()
        process.executableURL = try ServerBinary.url
        process.arguments = ["serve"]
        var environment = ProcessInfo.processInfo.environment
        environment["LOGISTICS_PORT"] = String(port)
        environment["LOGISTICS_HOST"] = "127.0.0.1"
        environment["LOGISTICS_DATA_DIR"] = dataDirectory
        environment["LOGISTICS_JWT_SECRET"] = secret
        environment["LOGISTICS_DATABASE_POOL_SIZE"] = "16"
        // Thousands of simulated phones share this machine's one address.
        for limit in ["ADDRESS", "CALLER", "FIXES"] { environment["LOGISTICS_RATE_LIMIT_\(limit)"] = "off" }
        environment["LOGISTICS_CONNECTIONS_PER_ADDRESS"] = "off"
        // The silent dispatchers share one token, and customers may share a tracking link.
        environment["LOGISTICS_SOCKETS_PER_CALLER"] = "off"
        environment["LOGISTICS_SOCKETS_PER_TRACKING_LINK"] = "off"
        environment["LOG_LEVEL"] = "error"
        environment.removeValue(forKey: "LOGISTICS_MAP")
        if let databaseURL {
            environment["DATABASE_URL"] = databaseURL
            environment["LOGISTICS_DATABASE_SCHEMA"] = schema
        } else {
            environment.removeValue(forKey: "DATABASE_URL")
        }
        process.environment = environment
        let log = FileManager.default.createFile(atPath: "\(dataDirectory)/server-\(index).log", contents: nil)
        _ = log
        let handle = FileHandle(forWritingAtPath: "\(dataDirectory)/server-\(index).log")
        process.standardOutput = handle
        process.standardError = handle
        try ChildProcesses.run(process)
        let server = BenchServerProcess(process: process, port: port)
        let http = HTTPClient.shared
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            guard process.isRunning else {
                let text = (try? String(contentsOfFile: "\(dataDirectory)/server-\(index).log", encoding: .utf8)) ?? ""
                throw Console.failure("the server exited at start:\n\(text.suffix(2000))")
            }
            if let response = try? await http.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/health/live"), timeout: .seconds(1)),
                response.status == .ok
            {
                return server
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        server.stop()
        throw Console.failure("the server did not answer /health/live within 120 s")
    }

    /// The kernel picks a free port; the server binds it a moment later.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Int32 in
                guard bind(fd, raw, length) == 0 else { return -1 }
                return getsockname(fd, raw, &length)
            }
        }
        guard bound == 0 else { throw Console.failure("no free port on 127.0.0.1") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Resident memory of the server process, from /proc.
    func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kib * 1024
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

extension TrackingBench {
    /// CPU seconds so far of the servers, the load generators (this process and its children) and PostgreSQL.
    static func cpuSeconds(servers: [Int32], _ load: TrackingLoad, postgres: Bool) -> CPUSpent {
        CPUSpent(
            servers: servers.reduce(0) { $0 + ProcessCPU.seconds(pid: $1) },
            generators: ProcessCPU.seconds(pid: getpid()) + load.childrenCPUSeconds(),
            postgres: postgres ? ProcessCPU.postgresSeconds() : 0)
    }
}

/// The CPU spent between the first fix sent and the last one answered. Measured from before the riders signed in,
/// it also held minting their tokens and the sockets' upgrades, and divided by the sending time alone it put the
/// servers, generators and PostgreSQL above the machine's core count.
final class TrafficCPU: Sendable {
    private let sample: @Sendable () -> CPUSpent
    private let marks = Mutex<(start: CPUSpent?, end: CPUSpent?)>((nil, nil))

    init(sample: @escaping @Sendable () -> CPUSpent) {
        self.sample = sample
    }

    func sendingStarts() {
        let now = sample()
        marks.withLock { $0.start = now }
    }

    func lastAnswered() {
        let now = sample()
        marks.withLock { $0.end = now }
    }

    var spent: CPUSpent {
        marks.withLock { marks in
            guard let start = marks.start, let end = marks.end else {
                return CPUSpent(servers: 0, generators: 0, postgres: 0)
            }
            return end - start
        }
    }
}

struct CPUSpent: Sendable {
    var servers: Double
    var generators: Double
    var postgres: Double

    static func - (lhs: CPUSpent, rhs: CPUSpent) -> CPUSpent {
        CPUSpent(
            servers: lhs.servers - rhs.servers, generators: lhs.generators - rhs.generators,
            postgres: lhs.postgres - rhs.postgres)
    }
}
