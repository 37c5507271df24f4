import AsyncHTTPClient
import Foundation
import Logging
import LogisticsCore
import LogisticsServer
import RiderKit
import RoadRouting
import TestSupport

/// Hours of orders in Monaco against an in-process server on a clock the simulation moves (15 s a step): orders
/// arrive at the simulation's stores at random, kitchens take 6 to 15 minutes, riders ride the server's routes at
/// city speed, wait at the counter for goods not yet ready, post their fixes, tap their statuses and prove delivery
/// with the customer's code — all through the API. Dispatch by hand is what the dispatcher map's button does (the 3
/// nearest free riders by road once the order is ready, again when the offers lapse); automatic dispatch offers
/// each ready order itself; ahead, it also has the vendor's preparation time; batching also offers riders on the
/// way a second order (their trips followed stop by stop as the server sequences them). Reports order→delivered,
/// ready→pickup, riders' wait at the store, idle share and offers per order.
struct DaySimulation {
    let map: String
    let riders: Int
    let hours: Double
    let ordersPerHour: Double
    let dispatch: Dispatch

    enum Dispatch: String, CaseIterable {
        case byHand = "by hand (3 nearest)"
        case atReady = "automatic, at ready"
        case ahead = "automatic, prep time"
        case batching = "prep time + batching"

        var usesPreparationTime: Bool { self == .ahead || self == .batching }
    }

    static let step: TimeInterval = 15
    static let speedMps = 7.0
    static let serviceSeconds: TimeInterval = 60

    struct Figures {
        var orders = 0
        var delivered = 0
        var readyToPickup: [Double] = []
        var readyToDelivered: [Double] = []
        var placedToDelivered: [Double] = []
        var waitAtStore: [Double] = []
        var idleSteps = 0
        var riderSteps = 0
        var offers = 0
    }

    func run() async throws -> Figures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-day-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = InProcessServer.configuration(directory: directory)
        configuration.routing.mapPath = map
        configuration.dispatch.automatic = dispatch == .byHand ? .off : .everyVendor
        configuration.dispatch.sweepSeconds = 0.05
        if dispatch == .batching { configuration.dispatch.batching = TripPlanner.Settings() }
        let logger = InProcessServer.logger
        let clock = ManualWallClock(Date())
        let (ports, reporter) = AsyncStream.makeStream(of: Int.self)
        let built = try await buildApplication(configuration, clock: clock, logger: logger) { port in
            reporter.yield(port)
            reporter.finish()
        }
        let issuer = await AccessTokenIssuer(secret: configuration.tokens.jwtSecret!)
        var figures = Figures()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await built.application.runService() }
            for await port in ports {
                let http = HTTPClient(eventLoopGroupProvider: .singleton)
                let calls = BenchCalls(base: "http://127.0.0.1:\(port)", transport: HTTPRiderTransport(http: http))
                var day = DayWorld(calls: calls, issuer: issuer, clock: clock, dispatch: dispatch)
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
                    try await day.markReady()
                    if dispatch == .byHand { try await day.dispatchByHand() }
                    // Automatic dispatch decides as orders become ready and at its sweep: give it a moment.
                    try await Task.sleep(for: .milliseconds(dispatch == .byHand ? 20 : 120))
                    try await day.ride()
                    if index % Int(3600 / Self.step) == 0 {
                        Console.line(
                            "  \(dispatch.rawValue): hour \(index * Int(Self.step) / 3600), "
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
