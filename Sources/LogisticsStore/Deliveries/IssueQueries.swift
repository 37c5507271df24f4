import Foundation
import LogisticsCore

extension SQLLogisticsRepository {
    public func reportIssue(
        taskId: UUID, type: DeliveryIssueType, note: String?, location: GeoPoint?, occurredAt: Date, by rider: Actor,
        now: Date
    ) async throws -> DeliveryIssue {
        try await database.transaction { transaction in
            let (task, order) = try await lockedTaskAndOrder(taskId, rider: rider, in: transaction)
            if order.status == .cancelled || task.status == .cancelled {
                throw LogisticsError(.orderCancelled, "The order was cancelled; stop this delivery")
            }
            guard !task.status.isFinal else {
                throw LogisticsError.invalidTransition(from: task.status, "The delivery has ended")
            }
            var issue = DeliveryIssue(
                id: UUID(), taskId: taskId, type: type, note: note, location: location, occurredAt: occurredAt)
            // Reachable by an app device, or by a text: a phone that takes them, an order that allows them (no list
            // is the server's default, which texts) and no STOP from the phone.
            let hasDevice =
                try await transaction.first(
                    "SELECT 1 AS reachable FROM devices WHERE owner_id = ? LIMIT 1", [.uuid(order.customer.id)]) != nil
            var textable = false
            if let phone = order.customer.textablePhone,
                order.customer.notify.map({ $0.contains(.sms) || $0.contains(.whatsapp) }) ?? true
            {
                textable = try await Self.optedOut([phone], in: transaction).isEmpty
            }
            try await transaction.query(
                """
                INSERT INTO delivery_issues (id, task_id, order_id, type, note, lat, lon, occurred_at, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .uuid(issue.id), .uuid(taskId), .uuid(order.id), .text(type.rawValue), .text(note),
                    .double(location?.lat), .double(location?.lon), .date(occurredAt), .date(now),
                ])
            if task.issueReportedAt == nil {
                try await transaction.query(
                    "UPDATE tasks SET issue_reported_at = ?, updated_at = ? WHERE id = ?",
                    [.date(now), .date(now), .uuid(taskId)])
            }
            // Each kind the customer hears of has its own fixed words; the rider's note goes to dispatchers only.
            let noticeKey = type.customerNotice(at: task.status)
            let customerNotice = noticeKey.map {
                QueuedNotification.catalog($0, to: order.customer.id, role: .customer)
            }
            let customerHears = customerNotice != nil
            let dispatcherWords = note ?? customerNotice?.body ?? Self.issueWords(type)
            issue.customerReachable = customerHears && (hasDevice || textable)
            // The note stays in delivery_issues, where anonymisation can blank it; the event log is append-only.
            let details = [
                "issueId": issue.id.lowercased, "issueType": type.rawValue, "hasNote": note == nil ? "false" : "true",
            ]
            try await EventLog(transaction: transaction).append(
                .init(
                    orderId: order.id, taskId: taskId, type: OrderEventType.deliveryIssueReported,
                    status: task.status.rawValue, occurredAt: occurredAt, receivedAt: now, location: location,
                    actor: rider, details: details),
                notify: (customerNotice.map { [$0] } ?? []) + [
                    QueuedNotification(
                        recipientId: nil, recipientRole: .dispatcher, title: "Delivery issue: \(type.rawValue)",
                        body: "Order \(order.externalRef ?? order.id.lowercased): \(dispatcherWords)")
                ])
            return issue
        }
    }

    /// The dispatcher's words for a report without a note.
    static func issueWords(_ type: DeliveryIssueType) -> String {
        type.rawValue.replacingOccurrences(of: "_", with: " ").capitalized(with: nil)
    }

    public func issues(orderId: UUID) async throws -> [DeliveryIssue] {
        try await database.query(
            "SELECT * FROM delivery_issues WHERE order_id = ? ORDER BY occurred_at, id", [.uuid(orderId)]
        ).map { row in
            var location: GeoPoint?
            if let lat = row.optionalDouble("lat"), let lon = row.optionalDouble("lon") {
                location = GeoPoint(lat: lat, lon: lon)
            }
            return DeliveryIssue(
                id: try row.uuid("id"), taskId: try row.optionalUUID("task_id"),
                type: DeliveryIssueType(rawValue: try row.string("type")) ?? .other, note: row.optionalString("note"),
                location: location, occurredAt: try row.date("occurred_at"))
        }
    }

    public func overrideProof(orderId: UUID, reason: String, by actor: Actor, now: Date) async throws -> DeliveryTask {
        try await updateActiveTask(
            orderId: orderId, set: "pod_override = 1", eventType: OrderEventType.proofOfDeliveryOverridden,
            reason: reason, by: actor, now: now)
    }

    public func approveFailure(orderId: UUID, reason: String?, by actor: Actor, now: Date) async throws -> DeliveryTask
    {
        try await updateActiveTask(
            orderId: orderId, set: "failure_approved = 1", eventType: OrderEventType.failureApproved, reason: reason,
            by: actor, now: now)
    }

    /// `kind` picks the fixed words the rider is told why (none: that the order went to another rider); the
    /// dispatcher's `reason` stays in the event log.
    public func reassign(orderId: UUID, reason: String, kind: ReassignReason?, by actor: Actor, now: Date)
        async throws -> Order
    {
        try await database.transaction { transaction in
            let order = try await lockedOrder(orderId, in: transaction)
            if order.status == .cancelled { throw LogisticsError(.orderCancelled, "The order was cancelled") }
            guard let taskId = order.taskId, let riderId = order.assignedRiderId else {
                throw LogisticsError.invalidTransition(from: order.status, "The order has no rider to take it from")
            }
            let task = try await lockedTask(taskId, in: transaction)
            guard task.status == .accepted || task.status == .arrivedAtStore else {
                throw LogisticsError.invalidTransition(
                    from: task.status,
                    task.status.isFinal
                        ? "The delivery has ended"
                        : "The rider has the parcel: send it back to the store instead (return-to-store)")
            }
            try await transaction.query(
                "UPDATE tasks SET status = 'CANCELLED', updated_at = ? WHERE id = ?", [.date(now), .uuid(taskId)])
            try await settleRider(riderId, at: now, in: transaction)
            try await transaction.query(
                """
                UPDATE orders SET status = 'READY_FOR_PICKUP', assigned_rider_id = NULL, task_id = NULL, updated_at = ?
                WHERE id = ?
                """, [.date(now), .uuid(orderId)])
            try await EventLog(transaction: transaction).append(
                .init(
                    orderId: orderId, taskId: taskId, type: OrderEventType.orderReassigned,
                    status: OrderStatus.readyForPickup.rawValue, occurredAt: now, receivedAt: now, actor: actor,
                    details: ["reason": reason, "fromRiderId": riderId.lowercased]
                        .merging(kind.map { ["reasonKind": $0.rawValue] } ?? [:]) { first, _ in first }),
                settingOrderStatus: .readyForPickup,
                notify: [
                    QueuedNotification.catalog(
                        kind?.notificationKey ?? NotificationKey.orderReassigned, to: riderId, role: .rider,
                        arguments: ["reference": order.externalRef ?? String(order.id.lowercased.prefix(8))])
                ])
            return try await lockedOrder(orderId, in: transaction)
        }
    }

    public func returnToStore(
        orderId: UUID, reason: String, kind: ReturnReason, by actor: Actor, now: Date
    ) async throws -> (DeliveryTask, Order) {
        try await database.transaction { transaction in
            let order = try await lockedOrder(orderId, in: transaction)
            if order.status == .cancelled { throw LogisticsError(.orderCancelled, "The order was cancelled") }
            guard let taskId = order.taskId else {
                throw LogisticsError.invalidTransition(from: order.status, "The order has no rider yet")
            }
            let task = try await lockedTask(taskId, in: transaction)
            guard task.status == .pickedUp || task.status == .arrivedAtDestination else {
                throw LogisticsError.invalidTransition(
                    from: task.status,
                    task.status.isFinal || task.status == .returningToStore
                        ? "The delivery has ended or is already going back"
                        : "The rider has not picked the parcel up: reassign or cancel the order instead")
            }
            guard
                let updated = try await transaction.first(
                    "UPDATE tasks SET status = 'RETURNING_TO_STORE', updated_at = ? WHERE id = ? RETURNING *",
                    [.date(now), .uuid(taskId)])
            else { throw LogisticsError.notFound("task") }
            let arguments = [
                "reference": order.externalRef ?? String(order.id.lowercased.prefix(8)), "vendor": order.vendor.name,
                "reason": reason,
            ]
            try await EventLog(transaction: transaction).append(
                .init(
                    orderId: orderId, taskId: taskId, type: OrderEventType.returnToStoreRequested,
                    status: TaskStatus.returningToStore.rawValue, occurredAt: now, receivedAt: now, actor: actor,
                    details: ["reason": reason, "reasonKind": kind.rawValue]),
                settingOrderStatus: .returningToStore,
                notify: [
                    QueuedNotification.catalog(
                        NotificationKey.returnToStore, to: task.riderId, role: .rider, arguments: arguments),
                    QueuedNotification.catalog(
                        NotificationKey.orderReturning, to: order.customer.id, role: .customer,
                        arguments: arguments.merging(["reason": kind.rawValue]) { _, kind in kind }),
                ])
            var changed = order
            changed.status = .returningToStore
            changed.updatedAt = now
            return (try DeliveryTask(row: updated), changed)
        }
    }

    /// A dispatcher's audited decision on the order's unfinished task.
    private func updateActiveTask(
        orderId: UUID, set assignment: String, eventType: String, reason: String?, by actor: Actor, now: Date
    ) async throws -> DeliveryTask {
        try await database.transaction { transaction in
            let order = try await lockedOrder(orderId, in: transaction)
            if order.status == .cancelled { throw LogisticsError(.orderCancelled, "The order was cancelled") }
            guard let taskId = order.taskId else {
                throw LogisticsError.invalidTransition(from: order.status, "The order has no rider yet")
            }
            let task = try await lockedTask(taskId, in: transaction)
            guard !task.status.isFinal else {
                throw LogisticsError.invalidTransition(from: task.status, "The delivery has ended")
            }
            try await transaction.query(
                "UPDATE tasks SET \(assignment), updated_at = ? WHERE id = ?", [.date(now), .uuid(taskId)])
            try await EventLog(transaction: transaction).append(
                .init(
                    orderId: orderId, taskId: taskId, type: eventType, status: task.status.rawValue, occurredAt: now,
                    receivedAt: now, actor: actor, details: reason.map { ["reason": $0] } ?? [:]),
                notify: [
                    QueuedNotification.catalog(
                        eventType == OrderEventType.failureApproved
                            ? NotificationKey.failureApproved : NotificationKey.proofWaived,
                        to: task.riderId, role: .rider)
                ])
            return try await lockedTask(taskId, in: transaction)
        }
    }
}
