import Foundation
import LogisticsCore
import LogisticsStore

/// Batching: riders on a trip who could take an order on the way, each with the plan that adds it. One small
/// travel table per rider (their position and every stop left, the new order's two among them), timed by the rider's
/// vehicle (`RiderTravelTime`), feeds the planner; only the riders nearest the store in a straight line are looked
/// at, so a busy city costs a bounded number of tables. Without a road map nobody is batched: straight lines are too rough to promise customers a delay limit.
struct TripCandidates {
    let navigator: Navigator
    let settings: TripPlanner.Settings
    /// Riders farther than this from the store in a straight line are not considered.
    let reachMetres: Double
    /// The most riders planned for per decision.
    var limit = 20

    func plans(for order: Order, among riders: [TripRider], now: Date) -> [UUID: TripPlanner.Plan] {
        let store = order.vendor.location
        let near =
            riders
            .compactMap { rider in rider.position.map { (rider, $0.distanceM(to: store)) } }
            .filter { $0.1 <= reachMetres }
            .sorted { $0.1 < $1.1 }
            .prefix(limit)
        var plans: [UUID: TripPlanner.Plan] = [:]
        for (rider, _) in near {
            if let plan = plan(adding: order, to: rider, now: now) { plans[rider.riderId] = plan }
        }
        return plans
    }

    private func plan(adding order: Order, to rider: TripRider, now: Date) -> TripPlanner.Plan? {
        guard let position = rider.position else { return nil }
        var points = [position]
        var places: [TripStop: TripPlanner.Place] = [:]
        func add(_ stop: TripStop, of stopOrder: Order) {
            let location = stop.kind == .store ? stopOrder.vendor.location : stopOrder.customer.location
            let readyIn = stop.kind == .store ? stopOrder.secondsUntilReady(at: now) ?? 0 : 0
            places[stop] = TripPlanner.Place(index: points.count, readyInSeconds: readyIn)
            points.append(location)
        }
        let orders = Dictionary(
            rider.trip.legs.map { ($0.order.id, $0.order) }, uniquingKeysWith: { first, _ in first })
        let current = rider.trip.remainingStops
        for stop in current {
            guard let stopOrder = orders[stop.orderId] else { return nil }
            add(stop, of: stopOrder)
        }
        add(TripStop(orderId: order.id, kind: .store), of: order)
        add(TripStop(orderId: order.id, kind: .customer), of: order)
        guard let table = try? navigator.table(from: points, to: points, profile: nil) else { return nil }
        return TripPlanner.plan(
            current: current, newOrder: order.id, places: places, start: 0,
            travel: {
                RiderTravelTime.seconds(
                    ofCell: table.durationsS[$0][$1], distanceM: table.distancesM[$0][$1], vehicle: rider.vehicle)
            }, settings: settings)
    }
}
