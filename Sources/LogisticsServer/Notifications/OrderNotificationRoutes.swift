import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import RoadRouting

/// `GET /api/v1/orders/{orderId}/notifications`: the messages of an order (customer, rider, dispatchers) and
/// where each went (push, SMS, WhatsApp) with the provider's word on it, for dispatchers.
struct OrderNotificationRoutes {
    let outbox: any OutboxRepository
    let deliveries: any NotificationRepository
    let lookup: OrderLookup

    func register(in routes: inout RouteTable) {
        routes.get("/orders/{orderId}/notifications", notifications)
    }

    @Sendable func notifications(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        let queued = try await outbox.outbox(orderId: order.id).filter { $0.topic == "push" }
        let copies = Dictionary(grouping: try await deliveries.messageDeliveries(orderId: order.id), by: \.outboxId)
        return try .json([
            "notifications": queued.map { NotificationRepresentation($0, deliveries: copies[$0.id] ?? []) }
        ])
    }
}
