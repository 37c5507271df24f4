import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// Dispatch decisions on an order: offers, proof override, failure approval, and its notifications.
struct DispatchRoutes {
    let services: LogisticsServices

    func register(in routes: inout RouteTable) {
        routes.post("/orders/{orderId}/offers", makeOffers)
        routes.post("/orders/{orderId}/pod-override", overrideProof)
        routes.post("/orders/{orderId}/failure-approval", approveFailure)
        routes.get("/orders/{orderId}/notifications", notifications)
    }

    @Sendable func makeOffers(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.vendor, .dispatcher, .admin)
        let body = try await RequestBody.decode(MakeOffersRequest.self, from: request)
        let targets = try body.targets(roadTime: services.navigator.provider.roadTravelTime)
        let order = try await services.visibleOrder(context, allowed: OrderAccess.canManage)
        let offers = try await services.deliveries.makeOffers(
            orderId: order.id, to: targets, ttl: TimeInterval(services.configuration.offerTTLSeconds), by: actor,
            now: services.clock.now())
        return try .json(OfferList(offers: offers.map { OfferRepresentation($0) }), status: .created)
    }

    @Sendable func overrideProof(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.dispatcher, .admin)
        let body = try await RequestBody.decode(DispatcherDecisionRequest.self, from: request)
        guard let reason = body.reason?.trimmingCharacters(in: .whitespacesAndNewlines), !reason.isEmpty,
            reason.count <= 500
        else { throw LogisticsError.validation(field: "reason", "is required (at most 500 characters)") }
        let order = try await services.visibleOrder(context, allowed: OrderAccess.canView)
        let task = try await services.deliveries.overrideProof(
            orderId: order.id, reason: reason, by: actor, now: services.clock.now())
        return try .json(TaskRepresentation(task, order, configuration: services.configuration))
    }

    @Sendable func approveFailure(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.dispatcher, .admin)
        let body = try await RequestBody.decode(DispatcherDecisionRequest.self, from: request)
        if let reason = body.reason, reason.count > 500 {
            throw LogisticsError.validation(field: "reason", "must be at most 500 characters")
        }
        let order = try await services.visibleOrder(context, allowed: OrderAccess.canView)
        let task = try await services.deliveries.approveFailure(
            orderId: order.id, reason: body.reason, by: actor, now: services.clock.now())
        return try .json(TaskRepresentation(task, order, configuration: services.configuration))
    }

    @Sendable func notifications(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let order = try await services.visibleOrder(context, allowed: OrderAccess.canView)
        let queued = try await services.repository.outbox(orderId: order.id).filter { $0.topic == "push" }
        return try .json(["notifications": queued.map(NotificationRepresentation.init)])
    }
}

struct OfferList: Encodable {
    var offers: [OfferRepresentation]
}
