import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import RoadRouting

/// A dispatcher's decisions on a delivery that cannot finish the usual way: accepting it without the proof, or
/// approving that it failed.
struct DispatcherDecisionRoutes {
    let deliveries: any DeliveryRepository
    let lookup: OrderLookup
    let configuration: ServerConfiguration
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        routes.post("/orders/{orderId}/pod-override", roles: [.dispatcher, .admin], overrideProof)
        routes.post("/orders/{orderId}/failure-approval", roles: [.dispatcher, .admin], approveFailure)
    }

    @Sendable func overrideProof(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.dispatcher, .admin)
        let body = try await RequestBody.decode(DispatcherDecisionRequest.self, from: request)
        guard let reason = body.reason?.trimmingCharacters(in: .whitespacesAndNewlines), !reason.isEmpty,
            reason.count <= 500
        else { throw LogisticsError.validation(field: "reason", "is required (at most 500 characters)") }
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        let task = try await deliveries.overrideProof(
            orderId: order.id, reason: reason, by: actor, now: clock.now())
        return try .json(TaskRepresentation(task, order, configuration: configuration))
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
        return try .json(TaskRepresentation(task, order, configuration: configuration))
    }
}
