import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import RoadRouting

/// A dispatcher's decisions on a delivery that cannot finish the usual way: accepting it without the proof,
/// approving that it failed, giving it to another rider, or sending the parcel back to the store.
struct DispatcherDecisionRoutes {
    let deliveries: any DeliveryRepository
    let lookup: OrderLookup
    let delivery: DeliverySettings
    let dispatcher: AutoDispatcher?
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        routes.post("/orders/{orderId}/pod-override", roles: [.dispatcher, .admin], overrideProof)
        routes.post("/orders/{orderId}/failure-approval", roles: [.dispatcher, .admin], approveFailure)
        routes.post("/orders/{orderId}/reassign", roles: [.dispatcher, .admin], reassign)
        routes.post("/orders/{orderId}/return-to-store", roles: [.dispatcher, .admin], returnToStore)
        routes.get("/orders/{orderId}/issues", issues)
    }

    /// What riders reported on the order, with their notes, for the dispatcher deciding what to do about it.
    @Sendable func issues(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        let issues = try await deliveries.issues(orderId: order.id).map { issue in
            ReportedIssue(
                issueId: issue.id.lowercased, taskId: issue.taskId?.lowercased, type: issue.type, note: issue.note,
                location: issue.location, occurredAt: issue.occurredAt)
        }
        return try .json(["issues": issues])
    }

    struct ReportedIssue: Encodable {
        var issueId: String
        var taskId: String?
        var type: DeliveryIssueType
        var note: String?
        var location: GeoPoint?
        var occurredAt: Date
    }

    /// After pickup: the rider's next stop becomes the store; the rider's RETURNED_TO_STORE ends the order RETURNED.
    @Sendable func returnToStore(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.dispatcher, .admin)
        let body = try await RequestBody.decode(ReturnToStoreRequest.self, from: request)
        let reason = try Self.requiredReason(body.reason)
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        let (task, returning) = try await deliveries.returnToStore(
            orderId: order.id, reason: reason, kind: body.reasonKind ?? .other, by: actor, now: clock.now())
        return try .json(TaskRepresentation(task, returning, delivery: delivery))
    }

    /// A decision that changes someone's day says why, in a few words the event log keeps.
    static func requiredReason(_ raw: String?) throws -> String {
        guard let reason = raw?.trimmingCharacters(in: .whitespacesAndNewlines), !reason.isEmpty, reason.count <= 500
        else { throw LogisticsError.validation(field: "reason", "is required (at most 500 characters)") }
        return reason
    }

    struct ReassignRequest: Decodable {
        var reason: String?
        /// Why, as the rider is told it in fixed words (the free `reason` is for the event log).
        var reasonKind: ReassignReason?
        var riderIds: [UUID]?
    }

    /// Takes the order from its rider before pickup and offers it again: to `riderIds`, or by automatic dispatch
    /// when that is on (otherwise the dispatcher offers it from the page). Answers the order and any new offers.
    @Sendable func reassign(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.dispatcher, .admin)
        let body = try await RequestBody.decode(ReassignRequest.self, from: request)
        let reason = try Self.requiredReason(body.reason)
        if let riders = body.riderIds, !(1...20).contains(riders.count) {
            throw LogisticsError.validation(field: "riderIds", "must name 1 to 20 riders")
        }
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        let now = clock.now()
        let ready = try await deliveries.reassign(
            orderId: order.id, reason: reason, kind: body.reasonKind, by: actor, now: now)
        var offers: [OfferRepresentation] = []
        if let riders = body.riderIds {
            offers = try await deliveries.makeOffers(
                orderId: ready.id, to: .riders(riders.filter { $0 != order.assignedRiderId }),
                ttl: TimeInterval(delivery.offerTTLSeconds), by: actor, now: now
            ).map { OfferRepresentation($0) }
        } else {
            dispatcher?.orderNeedsRider(ready.id)
        }
        return try .json(ReassignedOrder(order: OrderRepresentation(ready), offers: offers))
    }

    struct ReassignedOrder: Encodable {
        var order: OrderRepresentation
        var offers: [OfferRepresentation]
    }

    @Sendable func overrideProof(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.dispatcher, .admin)
        let body = try await RequestBody.decode(DispatcherDecisionRequest.self, from: request)
        let reason = try Self.requiredReason(body.reason)
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        let task = try await deliveries.overrideProof(
            orderId: order.id, reason: reason, by: actor, now: clock.now())
        return try .json(TaskRepresentation(task, order, delivery: delivery))
    }

    @Sendable func approveFailure(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.dispatcher, .admin)
        let body = try await RequestBody.decode(DispatcherDecisionRequest.self, from: request)
        if let reason = body.reason, reason.count > 500 {
            throw LogisticsError.validation(field: "reason", "must be at most 500 characters")
        }
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        let task = try await deliveries.approveFailure(
            orderId: order.id, reason: body.reason, by: actor, now: clock.now())
        return try .json(TaskRepresentation(task, order, delivery: delivery))
    }
}
