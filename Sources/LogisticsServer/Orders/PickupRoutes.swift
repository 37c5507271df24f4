import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import RoadRouting

/// `/api/v1/orders/{orderId}/pickup` and `/ready/undo`: the store's side of handing an order over. The store sees
/// who is coming (first name only), how long until they reach the store by road, when they arrived; and may take
/// "Ready" back within a minute (`ReadyUndo`).
struct PickupRoutes {
    let lookup: OrderLookup
    let orders: any OrderRepository
    let undo: any ReadyUndoRepository
    let riders: any RiderRepository
    let locations: any LocationRepository
    let ingest: LocationIngest
    let navigator: Navigator
    /// The rider's time to the store is timed by their vehicle (`RiderTravelTime`).
    let vehicles: RiderVehicles
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        routes.get("/orders/{orderId}/pickup", pickup)
        routes.post("/orders/{orderId}/ready/undo", roles: [.vendor, .dispatcher, .admin], undoReady)
    }

    struct PickupRepresentation: Encodable {
        var orderId: String
        var status: OrderStatus
        var readyAt: Date?
        /// Until when the store may still take "Ready" back; absent when it no longer can.
        var undoableUntil: Date?
        var stage: PickupProgress.Stage
        var rider: RiderRepresentation?
        /// By road from the rider's last fix to the store, while they are on the way and a route is known; by the
        /// rider's vehicle (a bicycle no faster than its own speed).
        var etaSeconds: Int?
        var distanceM: Double?
        var lastFixAt: Date?
        var arrivedAt: Date?
        var pickedUpAt: Date?

        struct RiderRepresentation: Encodable {
            var firstName: String?
        }
    }

    @Sendable func pickup(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.vendor, .dispatcher, .admin)
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canManage)
        let now = clock.now()
        let progress = PickupProgress.of(
            order, events: order.taskId == nil ? [] : try await orders.events(orderId: order.id))
        var answer = PickupRepresentation(
            orderId: order.id.lowercased, status: order.status, readyAt: order.readyAt,
            undoableUntil: ReadyUndo.undoableUntil(order).flatMap { $0 >= now ? $0 : nil }, stage: progress.stage,
            arrivedAt: progress.arrivedAt, pickedUpAt: progress.pickedUpAt)
        guard let riderId = order.assignedRiderId else { return try .json(answer) }
        answer.rider = .init(firstName: try await riders.rider(id: riderId)?.firstName)
        guard progress.stage == .onTheWay else { return try .json(answer) }
        // Memory first; the database knows the riders who report to another instance.
        var fix = ingest.newestShowable(riderId: riderId)
        if fix == nil { fix = try await locations.lastShowableFix(riderId: riderId) }
        if let fix {
            answer.lastFixAt = fix.recordedAt
            // Without a map or a route the store still learns that the rider is coming.
            let route = try? await navigator.route(
                RouteRequest(from: fix.point, to: order.vendor.location), profile: nil, now: now)
            if let route {
                let seconds = RiderTravelTime.seconds(
                    roadSeconds: route.durationS, distanceM: route.distanceM,
                    vehicle: await vehicles.vehicle(of: riderId))
                answer.etaSeconds = Int(seconds.rounded())
            }
            answer.distanceM = route?.distanceM
        }
        return try .json(answer)
    }

    @Sendable func undoReady(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.vendor, .dispatcher, .admin)
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canManage)
        let updated = try await undo.undoReady(orderId: order.id, by: actor, now: clock.now())
        return try .json(OrderRepresentation(updated))
    }
}
