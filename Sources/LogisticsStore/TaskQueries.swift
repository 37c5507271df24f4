import Foundation
import LogisticsCore

extension SQLLogisticsRepository {
    public func task(id: UUID) async throws -> DeliveryTask? {
        try await database.first("SELECT * FROM tasks WHERE id = ?", [.uuid(id)]).map(DeliveryTask.init(row:))
    }

    public func activeTask(riderId: UUID) async throws -> (DeliveryTask, Order)? {
        guard
            let row = try await database.first(
                """
                SELECT * FROM tasks WHERE rider_id = ? AND status NOT IN ('DELIVERED', 'CANCELLED', 'FAILED')
                ORDER BY accepted_at DESC LIMIT 1
                """, [.uuid(riderId)])
        else { return nil }
        let task = try DeliveryTask(row: row)
        guard let order = try await order(id: task.orderId) else { throw StoreError.corrupt("task without order") }
        return (task, order)
    }

    public func changeStatus(
        taskId: UUID, eventId: UUID, change: DeliveryRules.StatusChange, by rider: Actor, now: Date,
        settings: DeliveryRules.Settings
    ) async throws -> (DeliveryTask, Order) {
        try await database.transaction { transaction in
            let (task, order) = try await lockedTaskAndOrder(taskId, rider: rider, in: transaction)

            // A retried or replayed tap: the same event id gives the first result and writes nothing.
            if let previous = try await transaction.first(
                "SELECT task_id, status FROM order_events WHERE id = ?", [.uuid(eventId)])
            {
                guard try previous.optionalUUID("task_id") == taskId,
                    previous.optionalString("status") == change.status.rawValue
                else {
                    throw LogisticsError(
                        .idempotencyKeyReused, "eventId \(eventId.lowercased) was already used for another change")
                }
                return (task, order)
            }

            let verdict = try DeliveryRules.check(change, task: task, order: order, now: now, settings: settings)
            try await transaction.query(
                "UPDATE tasks SET status = ?, updated_at = ? WHERE id = ?",
                [.text(change.status.rawValue), .date(now), .uuid(taskId)])
            try await transaction.query(
                "UPDATE orders SET status = ?, updated_at = ? WHERE id = ?",
                [.text(change.status.orderStatus.rawValue), .date(now), .uuid(order.id)])
            if change.status.isFinal {
                try await transaction.query(
                    """
                    UPDATE riders SET availability = 'ONLINE', active_task_id = NULL, updated_at = ?
                    WHERE id = ? AND active_task_id = ?
                    """, [.date(now), .uuid(rider.id), .uuid(taskId)])
            }
            var notifications = [DeliveryRules.customerNotification(for: change.status, customerId: order.customer.id)]
                .compactMap { $0 }
            if change.status == .failed {
                notifications.append(
                    QueuedNotification(
                        recipientId: nil, recipientRole: .dispatcher, title: "Delivery failed",
                        body: "Order \(order.externalRef ?? order.id.lowercased) could not be delivered."))
            }
            var details: [String: String] = [:]
            if let reason = change.reason { details["reason"] = reason.rawValue }
            try await EventLog(transaction: transaction).append(
                .init(
                    id: eventId, orderId: order.id, taskId: taskId, type: OrderEventType.deliveryStatusUpdated,
                    status: change.status.rawValue, occurredAt: change.occurredAt, receivedAt: now,
                    location: change.location, actor: rider, geofenceDistanceM: verdict.geofenceDistanceM,
                    geofenceOverride: verdict.geofenceOverride, details: details),
                notify: notifications)
            return (try await lockedTask(taskId, in: transaction), try await lockedOrder(order.id, in: transaction))
        }
    }

    /// Locks the order, then the task (the order every writer uses), and checks the caller owns the task.
    func lockedTaskAndOrder(_ taskId: UUID, rider: Actor, in transaction: any SQLExecutor) async throws
        -> (DeliveryTask, Order)
    {
        guard
            let row = try await transaction.first("SELECT order_id, rider_id FROM tasks WHERE id = ?", [.uuid(taskId)])
        else { throw LogisticsError.notFound("task") }
        guard try row.uuid("rider_id") == rider.id else {
            throw LogisticsError(.forbidden, "This task belongs to another rider")
        }
        let order = try await lockedOrder(try row.uuid("order_id"), in: transaction)
        return (try await lockedTask(taskId, in: transaction), order)
    }
}
