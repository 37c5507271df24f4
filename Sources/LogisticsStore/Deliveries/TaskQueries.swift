import Foundation
import LogisticsCore

extension SQLLogisticsRepository {
    public func task(id: UUID) async throws -> DeliveryTask? {
        try await database.first("SELECT * FROM tasks WHERE id = ?", [.uuid(id)]).map(DeliveryTask.init(row:))
    }

    public func activeTask(riderId: UUID) async throws -> (DeliveryTask, Order)? {
        try await activeTrip(riderId: riderId).current.map { ($0.task, $0.order) }
    }

    public func changeStatus(
        taskId: UUID, eventId: UUID, change: DeliveryRules.StatusChange, by rider: Actor, now: Date,
        settings: DeliveryRules.Settings
    ) async throws -> (DeliveryTask, Order) {
        try await database.transaction { transaction in
            let order = try await lockedOrder(ofTask: taskId, in: transaction)
            // The task, locked, with whatever this event id already recorded.
            guard
                let row = try await transaction.first(
                    """
                    SELECT t.*, e.task_id AS previous_task_id, e.status AS previous_status
                    FROM tasks t LEFT JOIN order_events e ON e.id = ?
                    WHERE t.id = ?\(transaction.dialect == .postgres ? " FOR UPDATE OF t" : "")
                    """, [.uuid(eventId), .uuid(taskId)])
            else { throw LogisticsError.notFound("task") }
            let task = try DeliveryTask(row: row)
            guard task.riderId == rider.id else {
                throw LogisticsError(.forbidden, "This task belongs to another rider")
            }

            // A retried or replayed tap: the same event id gives the first result and writes nothing.
            if !row.isNull("previous_status") || !row.isNull("previous_task_id") {
                guard try row.optionalUUID("previous_task_id") == taskId,
                    row.optionalString("previous_status") == change.status.rawValue
                else {
                    throw LogisticsError(
                        .idempotencyKeyReused, "eventId \(eventId.lowercased) was already used for another change")
                }
                return (task, order)
            }

            let verdict = try DeliveryRules.check(change, task: task, order: order, now: now, settings: settings)
            guard
                let updated = try await transaction.first(
                    "UPDATE tasks SET status = ?, updated_at = ? WHERE id = ? RETURNING *",
                    [.text(change.status.rawValue), .date(now), .uuid(taskId)])
            else { throw LogisticsError.notFound("task") }
            // For a task never on a trip only its end changes what the rider does next: most changes spare the
            // two statements.
            if change.status.isFinal || task.wasBatched {
                try await settleRider(rider.id, at: now, in: transaction)
            }
            var notifications = [DeliveryRules.customerNotification(for: change.status, order: order)]
                .compactMap { $0 }
            if change.status == .failed {
                notifications.append(
                    QueuedNotification(
                        recipientId: nil, recipientRole: .dispatcher, title: "Delivery failed",
                        body: "Order \(order.externalRef ?? order.id.lowercased) could not be delivered."))
            }
            var details: [String: String] = [:]
            if let reason = change.reason { details["reason"] = reason.rawValue }
            if let why = change.noLocationReason { details["noLocationReason"] = why.rawValue }
            try await EventLog(transaction: transaction).append(
                .init(
                    id: eventId, orderId: order.id, taskId: taskId, type: OrderEventType.deliveryStatusUpdated,
                    status: change.status.rawValue, occurredAt: change.occurredAt, receivedAt: now,
                    location: change.location, actor: rider, geofenceDistanceM: verdict.geofenceDistanceM,
                    geofenceOverride: verdict.geofenceOverride, details: details),
                settingOrderStatus: change.status.orderStatus, notify: notifications)
            var changedOrder = order
            changedOrder.status = change.status.orderStatus
            changedOrder.updatedAt = now
            return (try DeliveryTask(row: updated), changedOrder)
        }
    }

    /// Locks the order, then the task (the order every writer uses), and checks the caller owns the task.
    func lockedTaskAndOrder(_ taskId: UUID, rider: Actor, in transaction: any SQLExecutor) async throws
        -> (DeliveryTask, Order)
    {
        let order = try await lockedOrder(ofTask: taskId, in: transaction)
        let task = try await lockedTask(taskId, in: transaction)
        guard task.riderId == rider.id else { throw LogisticsError(.forbidden, "This task belongs to another rider") }
        return (task, order)
    }

    /// The task's order, locked, in one statement.
    func lockedOrder(ofTask taskId: UUID, in transaction: any SQLExecutor) async throws -> Order {
        guard
            let row = try await transaction.first(
                "SELECT * FROM orders WHERE id = (SELECT order_id FROM tasks WHERE id = ?)\(transaction.forUpdate)",
                [.uuid(taskId)])
        else { throw LogisticsError.notFound("task") }
        return try Order(row: row)
    }
}
