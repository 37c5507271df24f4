import CitySimulation
import Foundation
import LogisticsCore
import LogisticsServer
import RiderKit
import RoadRouting
import TestSupport

/// The simulated city of `DaySimulation`: its riders, its orders, and what each does in a step.
struct DayWorld {
    let calls: BenchCalls
    let issuer: AccessTokenIssuer
    let clock: ManualWallClock
    let dispatch: DaySimulation.Dispatch
    var figures = DaySimulation.Figures()
    private var dispatcher = ""
    private var vendor = ""
    private var riders: [Rider] = []
    private var orders: [String: Placed] = [:]

    private struct Rider {
        var id: UUID
        var token: String
        var position: GeoPoint
        var taskId: String?
        var orderId: String?
        var path: [GeoPoint] = []
        var toCustomer = false
        var busyUntil: Date?
        /// When the rider reached the store, while waiting there for the goods.
        var atStoreSince: Date?
    }

    private struct Placed {
        var customerId: UUID
        var placedAt: Date
        /// When the kitchen finishes; the vendor marks the order ready at the first step from then.
        var readyAt: Date
        var marked = false
        var store: GeoPoint
        var home: GeoPoint
        var assigned = false
        var lastOfferAt: Date?
    }

    init(calls: BenchCalls, issuer: AccessTokenIssuer, clock: ManualWallClock, dispatch: DaySimulation.Dispatch) {
        self.calls = calls
        self.issuer = issuer
        self.clock = clock
        self.dispatch = dispatch
    }

    private func token(_ subject: UUID, _ role: Role) async throws -> String {
        try await issuer.token(subject: subject, role: role, ttl: 7 * 86_400, now: clock.now())
    }

    mutating func start(riders count: Int) async throws {
        dispatcher = try await token(UUID(), .dispatcher)
        vendor = try await token(UUID(), .vendor)
        for index in 0..<count {
            let online = try await calls.riderOnline(index) { try await token($0, .rider) }
            let rider = Rider(id: online.id, token: online.token, position: online.position)
            try await post(fixAt: rider.position, rider: rider)
            riders.append(rider)
        }
    }

    /// A customer orders from a store; its kitchen needs 6 to 15 minutes, which the vendor states (to the minute,
    /// within 2 minutes either way) only when dispatch goes ahead on it. Every mode draws the same numbers.
    mutating func placeOrder(random: inout SeededGenerator) async throws {
        let store = MonacoPlaces.all.randomElement(using: &random)!
        let home = MonacoPlaces.all.filter { $0.name != store.name }.randomElement(using: &random)!
        let preparation = Double.random(in: 360...900, using: &random)
        let estimate = max(1, Int(((preparation + Double.random(in: -120...120, using: &random)) / 60).rounded()))
        let customerId = UUID()
        let orderId = try await calls.office(vendor).placeOrder(
            ref: "DAY-\(figures.orders)",
            from: VendorStop(name: store.name, address: store.name, location: store.location),
            to: CustomerContact(
                id: customerId, name: "Day customer", phone: "+377 93 15 00 01", address: home.name,
                location: home.location),
            preparationMinutes: dispatch.usesPreparationTime ? estimate : nil)
        let now = clock.now()
        orders[orderId] = Placed(
            customerId: customerId, placedAt: now, readyAt: now.addingTimeInterval(preparation),
            store: store.location, home: home.location)
        figures.orders += 1
    }

    /// Vendors mark the orders their kitchens have finished.
    mutating func markReady() async throws {
        let now = clock.now()
        for (orderId, order) in orders where !order.marked && order.readyAt <= now {
            try await calls.office(vendor).markReady(orderId: orderId)
            orders[orderId]?.marked = true
        }
    }

    /// What the dispatcher map's "Offer" button does with nobody chosen: the 3 nearest free riders by road; again
    /// once those offers have lapsed.
    mutating func dispatchByHand() async throws {
        let now = clock.now()
        for (orderId, order) in orders.sorted(by: { $0.value.readyAt < $1.value.readyAt })
        where order.marked && !order.assigned && (order.lastOfferAt.map { now.timeIntervalSince($0) >= 60 } ?? true) {
            _ = try? await calls.office(dispatcher).offerToNearest(orderId: orderId, count: 3)
            orders[orderId]?.lastOfferAt = now
        }
    }

    mutating func ride() async throws {
        for index in riders.indices {
            figures.riderSteps += 1
            if riders[index].taskId == nil {
                figures.idleSteps += 1
                try await takeAnOffer(index)
                continue
            }
            if let busy = riders[index].busyUntil, busy > clock.now() { continue }
            riders[index].busyUntil = nil
            // On a trip with batching: a second order may be offered on the way.
            if dispatch == .batching { try await takeAnOffer(index) }
            move(index, metres: DaySimulation.speedMps * DaySimulation.step)
            try await post(fixAt: riders[index].position, rider: riders[index])
            if riders[index].path.isEmpty { try await arrive(index) }
        }
    }

    private mutating func takeAnOffer(_ index: Int) async throws {
        let rider = riders[index]
        let api = calls.rider(rider.token)
        guard let offer = try await api.offers().first, let task = try? await api.accept(offerId: offer.offerId)
        else { return }
        let orderId = task.orderId
        orders[orderId]?.assigned = true
        try await followTrip(index)
    }

    /// The server says which task's stop comes next (one task, or with batching the trip's first); the rider
    /// heads there, or is free when none is left.
    private mutating func followTrip(_ index: Int) async throws {
        let api = calls.rider(riders[index].token)
        guard try await api.me().activeTaskId != nil, let task = try await api.activeTask() else {
            riders[index].taskId = nil
            riders[index].orderId = nil
            return
        }
        if task.taskId != riders[index].taskId { riders[index].atStoreSince = nil }
        riders[index].taskId = task.taskId
        riders[index].orderId = task.orderId
        riders[index].toCustomer = task.nextStop?.kind == .customer
        riders[index].path = try await route(index)
    }

    private func route(_ index: Int) async throws -> [GeoPoint] {
        let rider = riders[index]
        return try await calls.taskRoute(taskId: rider.taskId!, from: rider.position, token: rider.token)
    }

    private mutating func move(_ index: Int, metres: Double) {
        var left = metres
        while left > 0, let next = riders[index].path.first {
            let here = riders[index].position
            let gap = here.distanceM(to: next)
            if gap <= left {
                left -= gap
                riders[index].position = next
                riders[index].path.removeFirst()
            } else {
                let part = left / gap
                riders[index].position = GeoPoint(
                    lat: here.lat + (next.lat - here.lat) * part, lon: here.lon + (next.lon - here.lon) * part)
                left = 0
            }
        }
    }

    private mutating func arrive(_ index: Int) async throws {
        let rider = riders[index]
        guard let taskId = rider.taskId, let orderId = rider.orderId, let order = orders[orderId] else { return }
        let now = clock.now()
        if !rider.toCustomer {
            if rider.atStoreSince == nil {
                try await tap(.arrivedAtStore, rider: rider, at: order.store)
                riders[index].atStoreSince = now
            }
            // The rider waits at the counter until the vendor has marked the order ready.
            guard order.marked else { return }
            try await tap(.pickedUp, rider: rider, at: order.store)
            figures.readyToPickup.append(now.timeIntervalSince(order.readyAt))
            figures.waitAtStore.append(now.timeIntervalSince(riders[index].atStoreSince ?? now))
            riders[index].atStoreSince = nil
            riders[index].position = order.store
            try await followTrip(index)
            riders[index].busyUntil = now.addingTimeInterval(DaySimulation.serviceSeconds)
            return
        }
        try await tap(.arrivedAtDestination, rider: rider, at: order.home)
        try await calls.deliverWithCode(
            taskId: taskId, orderId: orderId, customer: try await token(order.customerId, .customer),
            rider: rider.token, at: order.home, now: now)
        figures.readyToDelivered.append(now.timeIntervalSince(order.readyAt))
        figures.placedToDelivered.append(now.timeIntervalSince(order.placedAt))
        figures.delivered += 1
        riders[index].position = order.home
        try await followTrip(index)
        riders[index].busyUntil = now.addingTimeInterval(DaySimulation.serviceSeconds)
    }

    private func tap(_ status: TaskStatus, rider: Rider, at place: GeoPoint) async throws {
        try await calls.tap(status, taskId: rider.taskId!, token: rider.token, at: place, now: clock.now())
    }

    private func post(fixAt point: GeoPoint, rider: Rider) async throws {
        try await calls.rider(rider.token).sendLocations([
            LocationFix(
                lat: point.lat, lon: point.lon, accuracyM: 5, speedMps: DaySimulation.speedMps, recordedAt: clock.now())
        ])
    }

    /// Offers made per order, from the orders' event logs.
    func countOffers() async throws -> Int {
        var total = 0
        for orderId in orders.keys {
            for event in try await calls.office(dispatcher).events(orderId: orderId) where event.type == "OffersMade" {
                total += (event.details["riderIds"] ?? "").split(separator: ",").count
            }
        }
        return total
    }
}
