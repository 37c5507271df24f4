import AsyncHTTPClient
import CitySimulation
import Foundation
import LogisticsCore
import RiderKit
import RoadRouting

/// How the simulated fleet behaves.
struct SimulationPlan: Sendable {
    var riders: Int
    /// Stop after this many deliveries (nil: until the duration ends).
    var deliveries: Int?
    var duration: TimeInterval
    var speedMps: Double = 12
    var fixInterval: TimeInterval = 1
    var networkDrops = true
    var tunnels = true
    /// Each delivery starts from the store nearest the rider with a customer close by (the demo); otherwise stores
    /// and customers are anywhere on the map.
    var shortTrips = false
    /// The server dispatches automatically: orders are created and made ready, and riders take what they are offered.
    var automaticDispatch = false
    /// Streets slowed at chosen times of day.
    var traffic = SimulatedTraffic()
    /// Where the riders' random choices start (trips, tunnels, wrong turns, drops, GPS noise): the same seed gives
    /// each rider the same trips again. Which rider an automatic dispatch picks still depends on timing.
    var seed = UInt64.random(in: 0...UInt64.max)
}

/// Runs simulated riders against a server until the plan is done, printing a live line now and then.
struct Simulation {
    let base: String
    let plan: SimulationPlan
    let tokens: @Sendable (_ subject: UUID, _ role: Role) async throws -> String
    let report = SimulationReport()
    /// The client the riders and the office call with (the demo's trusts its own certificate).
    var http: HTTPClient = .shared
    var print: @Sendable (String) -> Void = { _ in }
    var liveEvery: Duration = .seconds(2)
    var queueDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("riderkit-sim-\(UUID())")

    func run() async throws -> SimulationReport {
        let started = ContinuousClock.now
        let tokens = self.tokens
        var office = SimulationOffice(base: base, http: http, tokens: tokens)
        office.automatic = plan.automaticDispatch
        var riders: [SimulatedRider] = []
        // Each rider's seed is drawn from the plan's: SplitMix steps its state by a constant, so seeds one step apart
        // would give riders the same draws shifted by one.
        var riderSeeds = SeededGenerator(state: plan.seed)
        for index in 0..<plan.riders {
            let id = UUID()
            let network = SimulatedNetwork(http: http)
            let api = RiderAPI(
                baseURL: base, token: { try await tokens(id, .rider) }, transport: network, timeout: .seconds(5))
            let queue = try ActionQueue(
                api: api, file: queueDirectory.appendingPathComponent("rider-\(index).json"),
                backoff: RetryPolicy(base: 0.5, cap: 4, budget: .infinity))
            var session = RiderSession(api: api, queue: queue)
            session.acceptTimeout = .seconds(3)
            riders.append(
                SimulatedRider(
                    id: id, name: "rider \(index + 1)", plan: plan, api: api, session: session, network: network,
                    uploader: LocationUploader(api: api),
                    office: office, report: report, position: MonacoPlaces.all[index % MonacoPlaces.all.count].location,
                    random: SeededGenerator(state: riderSeeds.next()))
            )
        }
        let fleetRiders = riders
        let report = self.report
        let plan = self.plan
        let print = self.print
        let liveEvery = self.liveEvery
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await withThrowingTaskGroup(of: Void.self) { fleet in
                    for rider in fleetRiders {
                        fleet.addTask {
                            var rider = rider
                            await rider.run()
                        }
                    }
                    try await fleet.waitForAll()
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(plan.duration))
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: liveEvery)
                    print(
                        report.liveLine(
                            riders: plan.riders, elapsed: (ContinuousClock.now - started).inSeconds,
                            target: plan.deliveries))
                }
            }
            // Whichever ends first (the fleet finishing its deliveries, or the time running out) ends the run.
            _ = try await group.next()
            group.cancelAll()
        }
        try? FileManager.default.removeItem(at: queueDirectory)
        return report
    }
}
