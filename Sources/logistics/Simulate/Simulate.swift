import ArgumentParser
import CitySimulation
import Foundation
import Logging
import LogisticsCore
import LogisticsServer

/// `logistics simulate`: simulated riders doing whole deliveries through RiderKit against a running server.
struct Simulate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drive simulated riders through complete deliveries against a running server, using RiderKit.")

    @Option(help: "The server's base URL.") var server: String = "http://127.0.0.1:8080"
    @Option(help: "How many riders.") var riders: Int = 5
    @Option(help: "Stop after this many deliveries (default: two per rider).") var orders: Int?
    @Option(help: "Stop after this many seconds at the latest.") var duration: Int = 600
    @Option(help: "Driving speed in m/s (raise it to fast-forward).") var speed: Double = 12
    @Option(name: .customLong("fix-interval"), help: "Seconds between GPS fixes.") var fixInterval: Double = 1
    @Flag(name: .customLong("no-network-drops"), help: "Keep every rider's network up.") var noDrops = false
    @Flag(name: .customLong("no-tunnels"), help: "Never lose GPS.") var noTunnels = false
    @Flag(
        name: .customLong("automatic-dispatch"),
        help: "The server dispatches by itself (LOGISTICS_AUTO_DISPATCH=on): only create orders, take any offer.")
    var automaticDispatch = false
    @Option(name: .customLong("data-dir"), help: "Data directory holding the server's development secret.")
    var dataDirectory: String?
    @Option(
        name: .customLong("slow"),
        help: ArgumentHelp(
            "A street driven slower at chosen times: NAME[@HH:MM-HH:MM][xFACTOR] (all day, x0.35 by default); "
                + "repeat for more. 'monaco-morning' is Monaco's 08:00-09:00 rush on seven main roads.",
            valueName: "street"))
    var slow: [String] = []
    @Option(
        name: .customLong("time-zone"),
        help: "The time zone of --slow windows (as the server's LOGISTICS_TIME_ZONE).")
    var timeZone: String = "UTC"
    @Option(help: "Seed of the riders' trips, tunnels, network drops and GPS noise (default: a random one, printed).")
    var seed: UInt64?

    /// The traffic scenario the options name.
    func traffic() throws -> SimulatedTraffic {
        do { return try SimulatedTraffic.named(slow, timeZone: timeZone) } catch {
            throw ValidationError("\(error)")
        }
    }

    func validate() throws {
        guard (1...500).contains(riders) else { throw ValidationError("--riders must be 1...500") }
        guard speed > 0, speed <= 1000 else { throw ValidationError("--speed must be in (0, 1000] m/s") }
        guard fixInterval >= 0.05, fixInterval <= 30 else {
            throw ValidationError("--fix-interval must be 0.05...30 s")
        }
        guard URL(string: server)?.host != nil else {
            throw ValidationError("--server must be a URL like http://127.0.0.1:8080")
        }
        _ = try traffic()
    }

    func run() async throws {
        var configuration = try ServerConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        if let dataDirectory { configuration.dataDirectory = dataDirectory }
        var logger = Logger(label: "rider-logistics.simulate")
        logger.logLevel = .error
        let secret: String
        do { secret = try JWTSecret.resolve(configuration, logger: logger) } catch {
            throw Console.failure(
                "cannot sign tokens: \(error) (pass --data-dir of the server, or LOGISTICS_JWT_SECRET)")
        }
        let issuer = await AccessTokenIssuer(
            secret: secret, issuer: configuration.tokens.issuer, audience: configuration.tokens.audience)
        var plan = SimulationPlan(
            riders: riders, deliveries: orders ?? riders * 2, duration: TimeInterval(duration), speedMps: speed,
            fixInterval: fixInterval, networkDrops: !noDrops, tunnels: !noTunnels, automaticDispatch: automaticDispatch,
            traffic: try traffic())
        if let seed { plan.seed = seed }
        Console.line(
            "Simulating \(riders) riders against \(server): \(plan.deliveries!) deliveries, \(Int(speed)) m/s, "
                + "network drops \(noDrops ? "off" : "on"), tunnels \(noTunnels ? "off" : "on"), "
                + "dispatch \(automaticDispatch ? "by the server" : "by hand"), seed \(plan.seed)"
                + (plan.traffic.slowdowns.isEmpty
                    ? "" : ", slowed: " + plan.traffic.slowdowns.map(\.description).joined(separator: ", ")))
        var simulation = Simulation(base: server, plan: plan) { subject, role in
            try await issuer.token(subject: subject, role: role, name: role == .rider ? "Simulated rider" : nil)
        }
        simulation.print = { Console.line($0) }
        let started = ContinuousClock.now
        let report: SimulationReport
        do { report = try await simulation.run() } catch {
            throw Console.failure("simulation stopped: \(error)")
        }
        for line in report.finalReport(elapsed: (ContinuousClock.now - started).inSeconds) { Console.line(line) }
        if report.snapshot.deliveriesCompleted < plan.deliveries! { throw ExitCode(2) }
    }
}
