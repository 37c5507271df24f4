import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import RoadRouting

/// `GET /api/v1/orders/{orderId}/notifications`: the push notifications queued for an order, for dispatchers.
struct OrderNotificationRoutes {
    let outbox: any OutboxRepository
    let lookup: OrderLookup

    func register(in routes: inout RouteTable) {
        routes.get("/orders/{orderId}/notifications", notifications)
    }

    @Sendable func notifications(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        let queued = try await outbox.outbox(orderId: order.id).filter { $0.topic == "push" }
        return try .json(["notifications": queued.map(NotificationRepresentation.init)])
    }
}
