import Foundation
import LogisticsCore

/// What the fan-out reads about an order's customer to choose the channel of a message.
struct CustomerReach {
    var phone: String?
    var locale: String?
    var notify: [CustomerChannel]?
    var optedOut: Bool
}

/// One delivery of an order's message, as the dispatcher's list shows it.
public struct MessageDelivery: Sendable, Equatable {
    public var id: Int
    public var outboxId: Int
    public var channel: NotificationChannel
    public var target: String
    public var status: String
    public var providerStatus: String?
    public var attempts: Int
    public var lastError: String?
    public var createdAt: Date
    public var finishedAt: Date?
    public var fallbackOf: Int?
}

extension SQLLogisticsRepository {
    /// The customers of these orders with their opt-outs, read in the fan-out's transaction.
    static func customerReach(orderIds: Set<UUID>, in transaction: any SQLExecutor) async throws -> [UUID:
        CustomerReach]
    {
        guard !orderIds.isEmpty else { return [:] }
        var reach: [UUID: CustomerReach] = [:]
        for row in try await transaction.query(
            """
            SELECT id, customer_phone, customer_locale, customer_notify FROM orders
            WHERE id IN (\(placeholders(orderIds.count)))
            """, orderIds.map { .uuid($0) })
        {
            reach[try row.uuid("id")] = CustomerReach(
                phone: PhoneNumber.textable(try row.string("customer_phone")),
                locale: row.optionalString("customer_locale"),
                notify: row.optionalString("customer_notify").flatMap(CustomerChannel.list), optedOut: false)
        }
        let optedOut = try await optedOut(Set(reach.values.compactMap(\.phone)), in: transaction)
        for (id, customer) in reach where customer.phone.map(optedOut.contains) == true {
            reach[id]?.optedOut = true
        }
        return reach
    }

    /// The phones among these that answered STOP.
    static func optedOut(_ phones: Set<String>, in transaction: any SQLExecutor) async throws -> Set<String> {
        guard !phones.isEmpty else { return [] }
        return Set(
            try await transaction.query(
                "SELECT phone FROM text_opt_outs WHERE phone IN (\(placeholders(phones.count)))",
                phones.map { .text($0) }
            ).map { try $0.string("phone") })
    }

    public func setTextOptOut(phone: String, optedOut: Bool, source: String, now: Date) async throws {
        guard optedOut else {
            try await database.query("DELETE FROM text_opt_outs WHERE phone = ?", [.text(phone)])
            return
        }
        try await database.query(
            "INSERT INTO text_opt_outs (phone, opted_out_at, source) VALUES (?, ?, ?) ON CONFLICT (phone) DO NOTHING",
            [.text(phone), .date(now), .text(source)])
        // What is already queued for the phone stops too: STOP means now, not after the backlog.
        try await database.query(
            """
            UPDATE notification_deliveries SET status = 'DROPPED', last_error = 'the customer opted out', finished_at = ?
            WHERE target = ? AND channel IN ('sms', 'whatsapp') AND status = 'PENDING' AND order_id <> ?
            """, [.date(now), .text(phone), .uuid(OutboxMessage.noOrder)])
    }

    /// A failed text of a customer message, once: the same message queued on the channel the fan-out chose as its
    /// fallback, unless the phone opted out since.
    func queueFallback(deliveryId: Int, now: Date) async throws {
        try await database.transaction { transaction in
            guard
                let row = try await transaction.first(
                    """
                    SELECT d.*, (SELECT 1 FROM text_opt_outs t WHERE t.phone = d.target) AS stopped
                    FROM notification_deliveries d WHERE d.id = ? AND d.fallback_of IS NULL
                        AND d.fallback_channel IS NOT NULL
                    """, [.int(deliveryId)]),
                row.optionalInt("stopped") == nil,
                let channel = NotificationChannel(rawValue: try row.string("fallback_channel"))
            else { return }
            let phone = try row.string("target")
            let orderId = try row.uuid("order_id")
            try await transaction.query(
                """
                INSERT INTO notification_deliveries (outbox_id, event_id, order_id, channel, destination_id, target,
                    locale, ordering_key, status, next_attempt_at, budget_from, created_at, fallback_of)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', ?, ?, ?, ?)
                ON CONFLICT (outbox_id, channel, destination_id) DO NOTHING
                """,
                [
                    .int(try row.int("outbox_id")), .text(try row.string("event_id")), .uuid(orderId),
                    .text(channel.rawValue), .text(phone), .text(phone), .text(row.optionalString("locale")),
                    .text(Self.orderingKey(channel, phone, scope: orderId)), .date(now), .date(now), .date(now),
                    .int(deliveryId),
                ])
        }
    }

    public func messageDeliveries(orderId: UUID) async throws -> [MessageDelivery] {
        try await database.query(
            "SELECT * FROM notification_deliveries WHERE order_id = ? ORDER BY id", [.uuid(orderId)]
        ).map { row in
            guard let channel = NotificationChannel(rawValue: try row.string("channel")) else {
                throw StoreError.corrupt("notification \(row.optionalString("id") ?? "?")")
            }
            return MessageDelivery(
                id: try row.int("id"), outboxId: try row.int("outbox_id"), channel: channel,
                target: try row.string("target"), status: try row.string("status"),
                providerStatus: row.optionalString("provider_status"), attempts: try row.int("attempts"),
                lastError: row.optionalString("last_error"), createdAt: try row.date("created_at"),
                finishedAt: row.optionalDate("finished_at"), fallbackOf: row.optionalInt("fallback_of"))
        }
    }
}
