import Foundation
import LogisticsCore

/// The store taking "Ready" back (`ReadyUndo`): its own capability, apart from the order intake.
public protocol ReadyUndoRepository: Sendable {
    /// Takes "Ready" back in one transaction with its event: the order is PREPARING again with its open offers
    /// withdrawn, or keeps the rider who accepted it, who is told to wait. Throws `ReadyUndo`'s refusals, with
    /// nothing changed.
    func undoReady(orderId: UUID, by actor: Actor, now: Date) async throws -> Order
}

extension SQLLogisticsRepository: ReadyUndoRepository {
    public func undoReady(orderId: UUID, by actor: Actor, now: Date) async throws -> Order {
        try await database.transaction { transaction in
            let order = try await lockedOrder(orderId, in: transaction)
            let status: OrderStatus
            var notifications: [QueuedNotification] = []
            switch try ReadyUndo.decide(order, now: now) {
            case .nothingToUndo:
                return order
            case .backToPreparing:
                status = .preparing
                // Riders asked to come for a parcel that is not ready: their offers end (the dispatcher reads
                // "withdrawn"), and the order is offered again once the store says it is ready.
                try await transaction.query(
                    "UPDATE offers SET status = 'CANCELLED', closed_at = ? WHERE order_id = ? AND status = 'OPEN'",
                    [.date(now), .uuid(orderId)])
            case .keepRider:
                status = .riderAssigned
                notifications =
                    order.assignedRiderId.map {
                        [
                            QueuedNotification.catalog(
                                NotificationKey.orderNotReady, to: $0, role: .rider,
                                arguments: ["vendor": order.vendor.name])
                        ]
                    } ?? []
            }
            try await transaction.query("UPDATE orders SET ready_at = NULL WHERE id = ?", [.uuid(orderId)])
            try await EventLog(transaction: transaction).append(
                .init(
                    orderId: orderId, taskId: order.taskId, type: OrderEventType.orderReadyUndone,
                    status: status.rawValue, occurredAt: now, receivedAt: now, actor: actor,
                    details: order.readyAt.map { ["readyAt": RFC3339.string(from: $0)] } ?? [:]),
                settingOrderStatus: status, notify: notifications)
            return try await lockedOrder(orderId, in: transaction)
        }
    }
}
