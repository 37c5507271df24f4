import ArgumentParser
import AsyncHTTPClient
import CitySimulation
import Foundation
import LogisticsCore
import LogisticsServer
import LogisticsStore
import RiderKit
import RoadRouting
import TestSupport

/// `logistics-bench eta`: how far the ETAs customers are promised are from the arrivals, with and without the
/// traffic the server learns. Simulated riders ride Monaco on a clock the bench moves, on streets the scenario
/// slows at chosen times; the server keeps every ETA from pickup on next to the arrival (`EtaLedger`), and the
/// bench reads them back. Three runs: traffic learning off; on, from the measured ride alone (live speeds); on,
/// after the fleet rode the same hours a week earlier (learned and live speeds).
struct EtaBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eta",
        abstract: "ETA error p50/p90 by minutes to go, with and without learned and live traffic.")

    @Option(help: "The OpenStreetMap extract.") var map: String = "Maps/monaco.osm.pbf"
    @Option(help: "Riders of the simulated fleet.") var riders: Int = 10
    @Option(help: "Simulated minutes ridden each time (from Monday 07:30 UTC).") var minutes: Int = 120
    @Option(help: "Seconds of simulated time between two fixes.") var step: Double = 5
    @Option(help: "Riders' usual speed as a share of the profile's free-flow speed.") var pace: Double = 0.8
    @Option(
        name: .customLong("slow"),
        help: ArgumentHelp(
            "Streets slowed at chosen times (as `logistics simulate --slow`).", valueName: "street"))
    var slow: [String] = ["monaco-morning"]
    @Option(help: "Seed of the orders' places.") var seed: UInt64 = 7

    func validate() throws {
        guard (1...200).contains(riders) else { throw ValidationError("--riders must be 1...200") }
        guard (10...24 * 60).contains(minutes) else { throw ValidationError("--minutes must be 10...1440") }
        guard (1...60).contains(step) else { throw ValidationError("--step must be 1...60 s") }
        guard pace > 0.1, pace <= 1.5 else { throw ValidationError("--pace must be in (0.1, 1.5]") }
        do { _ = try SimulatedTraffic.named(slow, timeZone: "UTC") } catch { throw ValidationError("\(error)") }
    }

    /// Monday 30 November 2026, 07:30 UTC: the measured ride starts here, the learning ride a week before.
    static let measuredStart = Date(timeIntervalSince1970: 1_796_023_800)

    func run() async throws {
        let traffic = try SimulatedTraffic.named(slow, timeZone: "UTC")
        Console.line(
            "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, "
                + "\(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB")
        Console.line(
            "== ETA accuracy on \(map): \(riders) riders at \(Int(pace * 100)) % of the profile's speeds, "
                + "\(minutes) simulated minutes from Monday 07:30 UTC, a fix every \(Int(step)) s; slowed: "
                + traffic.slowdowns.map(\.description).joined(separator: ", "))
        var rows: [(String, EtaFigures)] = []
        for (learning, history) in [(false, false), (true, false), (true, true)] {
            let run = EtaRun(
                map: map, riders: riders, minutes: minutes, step: step, pace: pace, traffic: traffic, seed: seed,
                learning: learning, history: history)
            let name = !learning ? "profile speeds only" : history ? "learned + live traffic" : "live traffic only"
            rows.append((name, try await run.measure()))
        }
        Console.line("  ETAs from pickup on, |predicted − actual arrival|:")
        Console.line(
            "  traffic                  deliveries  ETAs   trip (mean)  p50 error  p90 error  p50 / trip time")
        for (name, figures) in rows {
            let numbers = String(
                format: " %10d %5d %9.1f min %8.0f s %8.0f s %14.1f %%", figures.orders, figures.count,
                figures.meanTripSeconds / 60, figures.p50, figures.p90, figures.p50Relative * 100)
            Console.line("  " + name.padding(toLength: 24, withPad: " ", startingAt: 0) + numbers)
        }
        Console.line("  by minutes to go (p50 / p90 error, s):")
        for bucket in EtaFigures.buckets {
            let cells = rows.map { name, figures -> String in
                let (p50, p90, count) = figures.byMinutesToGo[bucket] ?? (0, 0, 0)
                return "  \(name): " + String(format: "%4.0f / %4.0f (%d)", p50, p90, count)
            }
            Console.line("    " + bucket.padding(toLength: 6, withPad: " ", startingAt: 0) + cells.joined())
        }
    }
}

/// One run of the fleet against a fresh in-process server.
struct EtaRun {
    let map: String
    let riders: Int
    let minutes: Int
    let step: Double
    let pace: Double
    let traffic: SimulatedTraffic
    let seed: UInt64
    /// Traffic learning on the server (`LOGISTICS_TRAFFIC_LEARNING`).
    let learning: Bool
    /// The fleet rides the same hours a week earlier first, so there are learned speeds for them.
    let history: Bool

    func measure() async throws -> EtaFigures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-eta-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = InProcessServer.configuration(directory: directory)
        configuration.routing.mapPath = map
        configuration.routing.trafficLearning = learning
        configuration.routing.trafficCustomiseMilliseconds = 200
        // Simulated time runs far faster than real time here: fixes are matched and learned from almost at once,
        // as they would be at the default half second in real time.
        configuration.routing.trafficMatchMilliseconds = 10
        let window = TimeInterval(minutes * 60)
        let measuredStart = EtaBench.measuredStart
        let clock = ManualWallClock(history ? measuredStart.addingTimeInterval(-7 * 86_400) : measuredStart)
        let (ports, reporter) = AsyncStream.makeStream(of: Int.self)
        let built = try await buildApplication(configuration, clock: clock, logger: InProcessServer.logger) { port in
            reporter.yield(port)
            reporter.finish()
        }
        guard let roadMap = (built.components.navigator.provider as? BuiltinDirections)?.maps.values.first,
            let ledger = built.components.repository as? any EtaRepository
        else { throw Console.failure("no map could be loaded from \(map)") }
        let issuer = await AccessTokenIssuer(secret: configuration.tokens.jwtSecret!)
        var predictions: [EtaPrediction] = []
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await built.application.runService() }
            for await port in ports {
                let http = HTTPClient(eventLoopGroupProvider: .singleton)
                let calls = BenchCalls(base: "http://127.0.0.1:\(port)", transport: HTTPRiderTransport(http: http))
                var fleet = EtaFleet(
                    calls: calls, issuer: issuer, clock: clock, map: roadMap, traffic: traffic, pace: pace,
                    seed: seed)
                for street in fleet.unknownStreets() {
                    Console.line("  warning: no street named \(street) on the map; it slows nothing")
                }
                try await fleet.start(riders: riders)
                let label = !learning ? "profile only" : history ? "learned + live" : "live only"
                if history {
                    try await ride(&fleet, clock: clock, for: window, label: "\(label), the week before")
                    clock.advance(by: measuredStart.timeIntervalSince(clock.now()))
                    fleet.restart(seed: seed)
                }
                try await ride(&fleet, clock: clock, for: window, label: label)
                Console.line(
                    "  \(label): \(fleet.delivered) deliveries in all, \(fleet.slowedFixes) fixes on slowed streets")
                predictions = try await ledger.settledEtaPredictions(since: measuredStart)
                try await http.shutdown()
                group.cancelAll()
            }
        }
        return EtaFigures(predictions)
    }

    /// Rides `window` of simulated time, then lets the riders on the road finish (no new orders) for up to an hour.
    private func ride(_ fleet: inout EtaFleet, clock: ManualWallClock, for window: TimeInterval, label: String)
        async throws
    {
        let end = clock.now().addingTimeInterval(window)
        var reported = clock.now()
        while clock.now() < end {
            clock.advance(by: step)
            try await fleet.step(seconds: step, takingOrders: true)
            if clock.now().timeIntervalSince(reported) >= 1800 {
                reported = clock.now()
                Console.line(
                    "  \(label): \(WeekSlot(clock.now(), timeZone: traffic.timeZone).label), "
                        + "\(fleet.delivered) delivered")
            }
        }
        let latest = clock.now().addingTimeInterval(3600)
        while fleet.onTheRoad > 0, clock.now() < latest {
            clock.advance(by: step)
            try await fleet.step(seconds: step, takingOrders: false)
        }
    }
}

/// ETA errors of one run, overall and by minutes to go.
struct EtaFigures {
    static let buckets = ["0-2", "2-5", "5-10", "10+"]

    var count = 0
    var orders = 0
    var p50 = 0.0
    var p90 = 0.0
    /// The median of each error as a share of its delivery's trip time (pickup to the door).
    var p50Relative = 0.0
    var meanTripSeconds = 0.0
    var byMinutesToGo: [String: (p50: Double, p90: Double, count: Int)] = [:]

    init(_ predictions: [EtaPrediction]) {
        let byOrder = Dictionary(grouping: predictions, by: \.orderId)
        var trips: [UUID: Double] = [:]
        for (order, kept) in byOrder {
            guard let pickup = kept.map(\.predictedAt).min(), let arrival = kept.first?.arrivedAt else { continue }
            trips[order] = max(1, arrival.timeIntervalSince(pickup))
        }
        let errors = predictions.compactMap { $0.errorSeconds.map(abs) }.sorted()
        count = errors.count
        orders = trips.count
        p50 = LatencyRecorder.percentile(errors, 0.5)
        p90 = LatencyRecorder.percentile(errors, 0.9)
        meanTripSeconds = trips.values.reduce(0, +) / Double(max(1, trips.count))
        p50Relative = LatencyRecorder.percentile(
            predictions.compactMap { prediction in
                prediction.errorSeconds.map { abs($0) / (trips[prediction.orderId] ?? 1) }
            }.sorted(), 0.5)
        var grouped: [String: [Double]] = [:]
        for prediction in predictions {
            guard let error = prediction.errorSeconds, let arrival = prediction.arrivedAt else { continue }
            let minutes = arrival.timeIntervalSince(prediction.predictedAt) / 60
            let bucket = minutes < 2 ? "0-2" : minutes < 5 ? "2-5" : minutes < 10 ? "5-10" : "10+"
            grouped[bucket, default: []].append(abs(error))
        }
        for (bucket, values) in grouped {
            let sorted = values.sorted()
            byMinutesToGo[bucket] = (
                LatencyRecorder.percentile(sorted, 0.5), LatencyRecorder.percentile(sorted, 0.9), sorted.count
            )
        }
    }
}
