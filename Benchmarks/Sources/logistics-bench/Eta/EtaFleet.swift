import CitySimulation
import Foundation
import LogisticsCore
import LogisticsServer
import RiderKit
import RoadRouting
import TestSupport

/// Riders of the ETA bench on a clock the bench moves: each takes an order from one Monaco place to another, rides
/// the server's route to the store and on to the customer, and proves delivery, all through the API. They drive
/// each street at `pace` of the profile's free-flow speed, times the traffic scenario's factor for that street at
/// that moment, and their fixes say so (speed and heading), as a phone's GPS would.
struct EtaFleet {
    let calls: BenchCalls
    let issuer: AccessTokenIssuer
    let clock: ManualWallClock
    let map: RoadMap
    let traffic: SimulatedTraffic
    /// Riders' usual speed as a share of the profile's.
    let pace: Double
    private(set) var delivered = 0
    private(set) var slowedFixes = 0
    private var dispatcher = ""
    private var riders: [Rider] = []
    private var random: SeededGenerator

    private struct Rider {
        var id: UUID
        var token: String
        var position: GeoPoint
        var taskId: String?
        var orderId: String?
        var customerId = UUID()
        var store = GeoPoint(lat: 0, lon: 0)
        var home = GeoPoint(lat: 0, lon: 0)
        var path: [GeoPoint] = []
        var toCustomer = false
    }

    init(
        calls: BenchCalls, issuer: AccessTokenIssuer, clock: ManualWallClock, map: RoadMap,
        traffic: SimulatedTraffic, pace: Double, seed: UInt64
    ) {
        self.calls = calls
        self.issuer = issuer
        self.clock = clock
        self.map = map
        self.traffic = traffic
        self.pace = pace
        random = SeededGenerator(state: seed)
    }

    private func token(_ subject: UUID, _ role: Role) async throws -> String {
        try await issuer.token(subject: subject, role: role, ttl: 14 * 86_400, now: clock.now())
    }

    mutating func start(riders count: Int) async throws {
        dispatcher = try await token(UUID(), .dispatcher)
        for index in 0..<count {
            let online = try await calls.riderOnline(index) { try await token($0, .rider) }
            let rider = Rider(id: online.id, token: online.token, position: online.position)
            riders.append(rider)
        }
    }

    /// Every rider back at its first place and the orders' places drawn afresh: the measured ride starts as the
    /// other run's does.
    mutating func restart(seed: UInt64) {
        random = SeededGenerator(state: seed)
        for index in riders.indices {
            riders[index].position = MonacoPlaces.all[index % MonacoPlaces.all.count].location
        }
    }

    /// Riders with a delivery under way.
    var onTheRoad: Int { riders.filter { $0.taskId != nil }.count }

    /// One step of `seconds`: idle riders take a new order (while `takingOrders`), the others drive on, post a fix
    /// and tap on arrival.
    mutating func step(seconds: TimeInterval, takingOrders: Bool) async throws {
        for index in riders.indices {
            if riders[index].taskId == nil {
                if takingOrders { try await takeOrder(index) }
                continue
            }
            drive(index, seconds: seconds)
            try await postFix(index, seconds: seconds)
            if riders[index].path.isEmpty { try await arrive(index) }
        }
    }

    private mutating func takeOrder(_ index: Int) async throws {
        let places = MonacoPlaces.all
        let store = places.min {
            $0.location.distanceM(to: riders[index].position) < $1.location.distanceM(to: riders[index].position)
        }!
        let home = places.filter { $0.name != store.name }.randomElement(using: &random)!
        let customerId = UUID()
        let office = calls.office(dispatcher)
        let orderId = try await office.placeOrder(
            ref: "ETA", from: VendorStop(name: store.name, address: store.name, location: store.location),
            to: CustomerContact(
                id: customerId, name: "ETA customer", phone: "+377 93 15 00 01", address: home.name,
                location: home.location))
        try await office.markReady(orderId: orderId)
        let offerIds = try await office.offer(orderId: orderId, to: [riders[index].id])
        let task = try await calls.rider(riders[index].token).accept(offerId: offerIds[0])
        riders[index].taskId = task.taskId
        riders[index].orderId = orderId
        riders[index].customerId = customerId
        riders[index].store = store.location
        riders[index].home = home.location
        riders[index].toCustomer = false
        riders[index].path = try await route(index)
    }

    private func route(_ index: Int) async throws -> [GeoPoint] {
        let rider = riders[index]
        let points = try await calls.taskRoute(taskId: rider.taskId!, from: rider.position, token: rider.token)
        return points + [rider.toCustomer ? rider.home : rider.store]
    }

    /// The speed the rider really drives between two points: the street's free-flow speed, the rider's pace, the
    /// scenario's slowdown there now.
    func speed(from a: GeoPoint, to b: GeoPoint) -> (metresPerSecond: Double, street: String) {
        let middle = GeoPoint(lat: (a.lat + b.lat) / 2, lon: (a.lon + b.lon) / 2)
        guard let snap = map.index.nearest(to: middle, maxDistanceM: 30) else { return (8 * pace, "") }
        let graph = map.graph
        let arcs =
            graph.arcs(from: snap.nodeA, toward: snap.nodeB, along: snap.way)
            + graph.arcs(from: snap.nodeB, toward: snap.nodeA, along: snap.way)
        let freeFlow = arcs.first.map { Double(graph.arcDistanceM[$0]) / max(0.1, Double(graph.arcDurationS[$0])) } ?? 8
        let street = graph.name(ofWay: snap.way)
        return (freeFlow * pace * traffic.factor(street: street, at: clock.now()), street)
    }

    private mutating func drive(_ index: Int, seconds: TimeInterval) {
        var left = seconds
        while left > 0, let next = riders[index].path.first {
            let here = riders[index].position
            let gap = here.distanceM(to: next)
            let metresPerSecond = max(0.5, speed(from: here, to: next).metresPerSecond)
            if gap <= metresPerSecond * left {
                left -= gap / metresPerSecond
                riders[index].position = next
                riders[index].path.removeFirst()
            } else {
                let part = metresPerSecond * left / gap
                riders[index].position = GeoPoint(
                    lat: here.lat + (next.lat - here.lat) * part, lon: here.lon + (next.lon - here.lon) * part)
                left = 0
            }
        }
    }

    private mutating func postFix(_ index: Int, seconds: TimeInterval) async throws {
        let rider = riders[index]
        // The GPS's course and speed: along the stretch being driven.
        let ahead = rider.path.first ?? rider.position
        let (metresPerSecond, street) = speed(from: rider.position, to: ahead)
        if traffic.factor(street: street, at: clock.now()) < 1 { slowedFixes += 1 }
        let heading = rider.position.distanceM(to: ahead) > 1 ? Bearing.degrees(from: rider.position, to: ahead) : nil
        try await calls.rider(rider.token).sendLocations([
            LocationFix(
                lat: rider.position.lat, lon: rider.position.lon, accuracyM: 5, speedMps: metresPerSecond,
                headingDeg: heading, recordedAt: clock.now())
        ])
    }

    private mutating func arrive(_ index: Int) async throws {
        let rider = riders[index]
        guard let taskId = rider.taskId, let orderId = rider.orderId else { return }
        if !rider.toCustomer {
            try await tap(.arrivedAtStore, index, at: rider.store)
            try await tap(.pickedUp, index, at: rider.store)
            riders[index].toCustomer = true
            riders[index].path = try await route(index)
            return
        }
        try await tap(.arrivedAtDestination, index, at: rider.home)
        try await calls.deliverWithCode(
            taskId: taskId, orderId: orderId, customer: try await token(rider.customerId, .customer),
            rider: rider.token, at: rider.home, now: clock.now())
        delivered += 1
        riders[index].taskId = nil
        riders[index].orderId = nil
    }

    private func tap(_ status: TaskStatus, _ index: Int, at place: GeoPoint) async throws {
        try await calls.tap(
            status, taskId: riders[index].taskId!, token: riders[index].token, at: place, now: clock.now())
    }

    /// Scenario streets the map has no way of that name for: a typo would silently slow nothing.
    func unknownStreets() -> [String] {
        let names = Set(map.graph.names.map { $0.lowercased() })
        return traffic.slowdowns.map(\.street).filter { !names.contains($0.lowercased()) }
    }
}
