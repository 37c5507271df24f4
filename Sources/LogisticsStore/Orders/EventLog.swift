import Foundation
import LogisticsCore

/// Appends to an order's immutable event log and queues the matching outbox rows, inside the caller's
/// transaction so the change, its event and its notifications commit together or not at all.
struct EventLog {
    let transaction: any SQLExecutor

    /// A new event without its sequence number; `append` assigns the next one for the order.
    struct Draft {
        var id = UUID()
        var orderId: UUID
        var taskId: UUID?
        var type: String
        var status: String?
        var occurredAt: Date
        var receivedAt: Date
        var location: GeoPoint?
        var actor: Actor
        var geofenceDistanceM: Double?
        var geofenceOverride = false
        var details: [String: String] = [:]
    }

    /// Appends the event with the order's next sequence number, optionally setting the order's status in
    /// the same statement.
    @discardableResult
    func append(
        _ draft: Draft, settingOrderStatus status: OrderStatus? = nil, notify notifications: [QueuedNotification] = []
    ) async throws -> OrderEvent {
        let seq = try await nextSequence(orderId: draft.orderId, settingStatus: status, at: draft.receivedAt)
        return try await write(draft, seq: seq, notify: notifications)
    }

    /// Bumps the order's event counter (serialising writers per order) and returns the new value.
    func nextSequence(orderId: UUID, settingStatus status: OrderStatus? = nil, at now: Date) async throws -> Int {
        let row: SQLRow?
        if let status {
            row = try await transaction.first(
                "UPDATE orders SET last_seq = last_seq + 1, status = ?, updated_at = ? WHERE id = ? RETURNING last_seq",
                [.text(status.rawValue), .date(now), .uuid(orderId)])
        } else {
            row = try await transaction.first(
                "UPDATE orders SET last_seq = last_seq + 1 WHERE id = ? RETURNING last_seq", [.uuid(orderId)])
        }
        guard let row else { throw LogisticsError.notFound("order") }
        return try row.int("last_seq")
    }

    /// Writes the event row and all its outbox rows (one multi-row insert) under a sequence number the
    /// caller already took.
    @discardableResult
    func write(_ draft: Draft, seq: Int, notify notifications: [QueuedNotification] = []) async throws -> OrderEvent {
        let event = OrderEvent(
            id: draft.id, orderId: draft.orderId, taskId: draft.taskId, seq: seq, type: draft.type,
            status: draft.status,
            occurredAt: draft.occurredAt, receivedAt: draft.receivedAt, location: draft.location,
            actorId: draft.actor.id,
            actorRole: draft.actor.role, geofenceDistanceM: draft.geofenceDistanceM,
            geofenceOverride: draft.geofenceOverride, details: draft.details)
        let details = String(decoding: try JSONEncoder.sorted.encode(event.details), as: UTF8.self)
        try await transaction.query(
            """
            INSERT INTO order_events (id, order_id, task_id, seq, type, status, occurred_at, received_at, lat, lon,
                accuracy_m, actor_id, actor_role, geofence_distance_m, geofence_override, details)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .uuid(event.id), .uuid(event.orderId), .uuid(event.taskId), .int(event.seq), .text(event.type),
                .text(event.status), .date(event.occurredAt), .date(event.receivedAt), .double(event.location?.lat),
                .double(event.location?.lon), .double(event.location?.accuracyM), .uuid(event.actorId),
                .text(event.actorRole.rawValue), .double(event.geofenceDistanceM), .bool(event.geofenceOverride),
                .text(details),
            ])
        let payload = String(decoding: try JSONEncoder.sorted.encode(OutboxEventPayload(event)), as: UTF8.self)
        let rows: [(String, QueuedNotification?)] = [("event", nil)] + notifications.map { ("push", $0) }
        var binds: [SQLValue] = []
        for (topic, notification) in rows {
            binds += [
                .uuid(event.id), .uuid(event.orderId), .text(topic), .uuid(notification?.recipientId),
                .text(notification?.recipientRole.rawValue), .text(notification?.title), .text(notification?.body),
                .text(payload), .date(event.receivedAt), .text(notification?.textKey),
                .text(try notification.flatMap(Self.argumentsJSON)),
            ]
        }
        let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: rows.count).joined(separator: ", ")
        try await transaction.query(
            """
            INSERT INTO outbox (event_id, order_id, topic, recipient_id, recipient_role, title, body, payload, created_at,
                text_key, text_args)
            VALUES \(values)
            """, binds)
        try await IdempotencyClaim.recordCommit(orderId: event.orderId, in: transaction)
        return event
    }

    private static func argumentsJSON(_ notification: QueuedNotification) throws -> String? {
        guard !notification.arguments.isEmpty else { return nil }
        return String(decoding: try JSONEncoder.sorted.encode(notification.arguments), as: UTF8.self)
    }
}

/// The event as published to the tracking hub, push providers and webhooks.
struct OutboxEventPayload: Codable {
    /// Ids as the rest of the API writes them (lowercase), since dispatchers and webhooks read this document.
    var id: String
    var type: String
    var orderId: String
    var taskId: String?
    var seq: Int
    var status: String?
    var occurredAt: Date
    var data: [String: String]

    init(_ event: OrderEvent) {
        id = event.id.lowercased
        type = event.type
        orderId = event.orderId.lowercased
        taskId = event.taskId?.lowercased
        seq = event.seq
        status = event.status
        occurredAt = event.occurredAt
        // Receivers look for the status under `data` (the webhook contract); it stays at the top level as well.
        data = event.details
        if let status = event.status { data["status"] = status }
    }
}

extension JSONEncoder {
    /// Stable key order and millisecond RFC 3339 times, so stored payloads compare byte for byte.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = RFC3339.jsonEncoding
        return encoder
    }
}
