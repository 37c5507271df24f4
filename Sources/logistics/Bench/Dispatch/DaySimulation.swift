import AsyncHTTPClient
import Foundation
import Logging
import LogisticsCore
import LogisticsServer
import RoadRouting

/// Hours of orders in Monaco against an in-process server on a clock the simulation moves (15 s a step): orders
/// arrive at the simulation's stores at random, riders ride the server's routes at city speed, post their fixes,
/// tap their statuses and prove delivery with the customer's code — all through the API. With automatic dispatch
/// the server offers each ready order; without, the simulation dispatches as the dispatcher map's button does (the 3
/// nearest free riders by road, again when the offers lapse). Reports ready→pickup, delivery time, idle share and
/// offers per order.
struct DaySimulation {
    let map: String
    let riders: Int
    let hours: Double
    let ordersPerHour: Double
    let automatic: Bool

    static let step: TimeInterval = 15
    static let speedMps = 7.0
    static let serviceSeconds: TimeInterval = 60

    struct Figures {
        var orders = 0
        var delivered = 0
        var readyToPickup: [Double] = []
        var readyToDelivered: [Double] = []
        var idleSteps = 0
        var riderSteps = 0
        var offers = 0
    }

    func run() async throws -> Figures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-day-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = InProcessServer.configuration(directory: directory)
        configuration.mapPath = map
        configuration.dispatch.automatic = automatic ? .everyVendor : .off
        configuration.dispatch.sweepSeconds = 0.05
        let logger = InProcessServer.logger
        let clock = ManualWallClock(Date())
        let (ports, reporter) = AsyncStream.makeStream(of: Int.self)
        let built = try await buildApplication(configuration, clock: clock, logger: logger) { port in
            reporter.yield(port)
            reporter.finish()
        }
        let issuer = await AccessTokenIssuer(secret: configuration.jwtSecret!)
        var figures = Figures()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await built.application.runService() }
            for await port in ports {
                let http = HTTPClient(eventLoopGroupProvider: .singleton)
                let client = BenchClient(http: http, base: "http://127.0.0.1:\(port)", recorder: nil)
                var day = DayWorld(client: client, issuer: issuer, clock: clock, automatic: automatic)
                try await day.start(riders: riders)
                var random = SeededGenerator(state: 42)
                let steps = Int(hours * 3600 / Self.step)
                for index in 0..<steps {
                    clock.advance(by: Self.step)
                    let expected = ordersPerHour * Self.step / 3600
                    // Poisson arrivals in the step, by inversion.
                    var arrivals = 0
                    var product = Double.random(in: 0..<1, using: &random)
                    while product > exp(-expected) {
                        arrivals += 1
                        product *= Double.random(in: 0..<1, using: &random)
                    }
                    for _ in 0..<arrivals { try await day.placeOrder(random: &random) }
                    if !automatic { try await day.dispatchByHand() }
                    // Automatic dispatch decides as orders become ready and at its sweep: give it a moment.
                    try await Task.sleep(for: .milliseconds(automatic ? 120 : 20))
                    try await day.ride()
                    if index % Int(3600 / Self.step) == 0 {
                        Console.line(
                            "  \(automatic ? "automatic" : "by hand"): hour \(index * Int(Self.step) / 3600), "
                                + "\(day.figures.orders) orders, \(day.figures.delivered) delivered")
                    }
                }
                figures = day.figures
                figures.offers = try await day.countOffers()
                try await http.shutdown()
                group.cancelAll()
            }
        }
        return figures
    }
}
