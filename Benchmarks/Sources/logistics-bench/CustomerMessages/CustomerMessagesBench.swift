import ArgumentParser
import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsServer
import RiderKit
import TestSupport

/// `logistics-bench customer-messages`: status changes that text the customer, at a steady rate, against an
/// in-process server whose SMS provider is Twilio played by a sink on localhost. Each change is timed from the
/// moment its PATCH left the client to the moment the sink received the matching Twilio request (the customer's
/// Nth text), so the figure includes the PATCH itself. Twilio-shaped requests sent straight to the sink in the
/// same run are the floor to compare with.
struct CustomerMessagesBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "customer-messages",
        abstract: "Status changes that text customers, at a steady rate; p50/p95/p99 from the change to Twilio.")

    @Option(help: "Status changes started per second, spread evenly (open loop).") var rate: Double = 50
    @Option(help: "Seconds of status changes; the orders needed are prepared before.") var duration: Double = 20
    @Option(name: .customLong("database-url"), help: "PostgreSQL instead of SQLite.") var databaseURL: String?
    @Flag(
        help:
            "Exit with failure when a target in Benchmarks/Thresholds/logistics-bench/customer-messages.json is missed."
    )
    var holdToTargets = false

    static let latencyRow = "status change → Twilio request"
    static let answeredRow = "PATCH answered → Twilio request"
    static let floorRow = "direct POST → Twilio (floor)"

    func validate() throws {
        guard rate > 0, rate <= 1_000 else { throw ValidationError("--rate must be more than 0 and at most 1000") }
        guard duration >= 1, duration <= 600 else { throw ValidationError("--duration must be 1...600 seconds") }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-texts-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenFile = directory.appendingPathComponent("twilio-auth-token")
        try (TwilioSink.authToken + "\n").write(to: tokenFile, atomically: true, encoding: .utf8)
        let schema =
            if let databaseURL { try await IsolatedSchema.create(url: databaseURL, prefix: "texts").name } else {
                String?.none
            }
        let sink = TwilioSink()
        do {
            try await sink.run { sinkPort in
                var configuration = InProcessServer.configuration(directory: directory.appendingPathComponent("data"))
                configuration.database.url = databaseURL
                configuration.database.schema = schema
                configuration.database.poolSize = 16
                configuration.textMessages.provider = .twilio
                configuration.textMessages.twilioAccountSid = TwilioSink.accountSid
                configuration.textMessages.twilioAuthTokenFile = tokenFile.path
                configuration.textMessages.twilioFrom = TwilioSink.from
                configuration.textMessages.twilioBaseURL = "http://127.0.0.1:\(sinkPort)"
                // Only written into the StatusCallback field: the sink never calls back.
                configuration.publicURL = "https://deliveries.example.com"
                try await serve(configuration, sinkPort: sinkPort, sink: sink)
            }
        } catch {
            if let schema, let databaseURL { await IsolatedSchema(name: schema, url: databaseURL).drop() }
            throw error
        }
        if let schema, let databaseURL { await IsolatedSchema(name: schema, url: databaseURL).drop() }
    }

    private func serve(_ configuration: ServerConfiguration, sinkPort: Int, sink: TwilioSink) async throws {
        let store = databaseURL == nil ? "SQLite (WAL)" : "PostgreSQL"
        Console.line("Starting an in-process server on \(store), texting through a Twilio sink on port \(sinkPort) ...")
        let (ports, reporter) = AsyncStream.makeStream(of: Int.self)
        let built = try await buildApplication(configuration, logger: InProcessServer.logger) { port in
            reporter.yield(port)
            reporter.finish()
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await built.application.runService() }
            for await port in ports {
                var http = HTTPClient.Configuration()
                http.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
                do {
                    try await measure(
                        base: "http://127.0.0.1:\(port)", sinkPort: sinkPort, sink: sink, http: client,
                        secret: configuration.tokens.jwtSecret!, store: store)
                } catch {
                    try? await client.shutdown()
                    throw error
                }
                try await client.shutdown()
            }
            group.cancelAll()
        }
    }

    private func measure(
        base: String, sinkPort: Int, sink: TwilioSink, http: HTTPClient, secret: String, store: String
    ) async throws {
        let changes = max(1, Int((rate * duration).rounded()))
        let orders = (changes + CustomerMessageLoad.steps.count - 1) / CustomerMessageLoad.steps.count
        let recorder = LatencyRecorder()
        let load = CustomerMessageLoad(
            base: base, http: http, tokens: await AccessTokenIssuer(secret: secret), orders: orders,
            recorder: recorder)

        Console.line("Preparing \(orders) orders, each with its own rider and customer phone, up to the store ...")
        let prepared = DeliveryCounter()
        let prepareProgress = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(2))
                Console.line("  \(prepared.value)/\(orders) orders assigned, \(sink.count) texts so far")
            }
        }
        let ready: [CustomerMessageLoad.Prepared]
        do {
            ready = try await load.prepare { prepared.add($0) }
            prepareProgress.cancel()
        } catch {
            prepareProgress.cancel()
            throw Console.failure("preparing the orders failed: \(error)")
        }
        // The order's and the assignment's texts are sent before the clock starts, so the measured changes do not
        // queue behind them.
        try await waitForTexts(
            sink, ready.map { ($0.phone, CustomerMessageLoad.textsBefore - 1) },
            what: "the \(orders) orders' and assignments' texts", within: .seconds(60))

        Console.line(
            "Driving \(changes) status changes (PICKED_UP, ARRIVED_AT_DESTINATION, DELIVERED) at \(Int(rate))/s ...")
        let sent = DeliveryCounter()
        let cpuBefore = ProcessCPU.seconds(pid: getpid())
        let postgresBefore = databaseURL == nil ? 0 : ProcessCPU.postgresSeconds()
        let started = ContinuousClock.now
        let direct = DirectSends(
            url: "http://127.0.0.1:\(sinkPort)/2010-04-01/Accounts/\(TwilioSink.accountSid)/Messages.json")
        let floorTask = Task { await direct.run(http: http, interval: .milliseconds(200)) }
        let progress = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(2))
                Console.line("  \(sent.value)/\(changes) status changes, \(sink.count) texts received")
            }
        }
        let (done, failures) = await load.drive(ready, changes: changes, rate: rate) { sent.add(1) }
        let driveSeconds = (ContinuousClock.now - started).inSeconds
        floorTask.cancel()
        let floorStarts = await floorTask.value
        let lost: Int
        do {
            try await waitForTexts(
                sink, done.map { ($0.phone, $0.text) }, what: "the texts of \(done.count) status changes",
                within: .seconds(30))
            lost = 0
        } catch {
            lost = done.filter { sink.arrivals(to: $0.phone).count <= $0.text }.count
        }
        progress.cancel()
        let cpu = ProcessCPU.seconds(pid: getpid()) - cpuBefore
        let postgres = databaseURL == nil ? 0 : ProcessCPU.postgresSeconds() - postgresBefore

        let texts = LatencyRecorder()
        var early = 0
        for change in done {
            let arrivals = sink.arrivals(to: change.phone)
            guard arrivals.count > change.text else { continue }
            let at = arrivals[change.text].at
            texts.record(Self.latencyRow, seconds: (at - change.sent).inSeconds)
            // A text can reach the sink before the PATCH's answer reaches the client: counted as 0 and said so.
            if at < change.answered { early += 1 }
            texts.record(Self.answeredRow, seconds: max(0, (at - change.answered).inSeconds))
        }
        let floor = LatencyRecorder()
        let directArrivals = sink.arrivals(to: DirectSends.phone)
        for arrival in directArrivals {
            guard let start = floorStarts[arrival.body] else { continue }
            floor.record(Self.floorRow, seconds: (arrival.at - start).inSeconds)
        }
        let extra = ready.reduce(0) { total, order in
            total
                + max(
                    0,
                    sink.arrivals(to: order.phone).count - CustomerMessageLoad.textsBefore
                        - done.filter { $0.phone == order.phone }.count)
        }

        Console.line()
        Console.line(
            "store: \(store); \(done.count) of \(changes) status changes accepted in \(String(format: "%.1f", driveSeconds)) s "
                + "(\(String(format: "%.1f", Double(done.count) / driveSeconds))/s) over \(orders) orders")
        Console.line(
            "texts: \(done.count - lost) matched, \(lost) lost, \(extra) extra (sent twice), "
                + "\(sink.violations.count) requests Twilio would refuse; \(early) reached Twilio before the PATCH's answer"
        )
        let perChange = cpu * 1000 / Double(max(1, done.count))
        var cpuLine =
            "CPU per status change: \(String(format: "%.2f", perChange)) ms in this process (server, sink and load)"
        if databaseURL != nil {
            cpuLine += " + \(String(format: "%.2f", postgres * 1000 / Double(max(1, done.count)))) ms PostgreSQL"
        }
        Console.line(cpuLine)
        Console.line()
        LatencyRecorder.printTable(texts.rows() + floor.rows() + recorder.rows())
        let missed = try Thresholds.named("customer-messages").check(texts.rows())
        var problems: [String] = []
        if lost > 0 { problems.append("\(lost) texts lost") }
        if !failures.isEmpty { problems.append("\(failures.count) status changes failed, first: \(failures[0])") }
        if let violation = sink.violations.first {
            problems.append("\(sink.violations.count) requests Twilio would refuse, first: \(violation)")
        }
        if holdToTargets { problems += missed.map { "target missed: \($0)" } }
        if !problems.isEmpty { throw Console.failure(problems.joined(separator: "; ")) }
    }

    /// Waits until each phone has received more than `text` texts.
    private func waitForTexts(
        _ sink: TwilioSink, _ expected: [(phone: String, text: Int)], what: String, within limit: Duration
    ) async throws {
        let deadline = ContinuousClock.now + limit
        while true {
            let missing = expected.filter { sink.arrivals(to: $0.phone).count <= $0.text }.count
            if missing == 0 { return }
            guard ContinuousClock.now < deadline else {
                Console.line("  \(missing) of \(what) did not reach Twilio within \(limit)")
                throw Console.failure("\(missing) of \(what) did not reach Twilio within \(limit)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
