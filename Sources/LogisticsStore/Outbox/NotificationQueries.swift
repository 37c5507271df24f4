import Foundation
import LogisticsCore

extension SQLLogisticsRepository: NotificationRepository {
    /// Notifications of one destination taken in one claim.
    public static let perDestinationPerClaim = 20

    public func fanOut(
        _ messages: [OutboxMessage], channels: Set<NotificationChannel>, customerChannels: [CustomerChannel], now: Date
    ) async throws {
        guard !messages.isEmpty else { return }
        try await database.transaction { transaction in
            let customers = try await Self.customerReach(
                orderIds: Set(messages.filter(\.isCustomerMessage).map(\.orderId)), in: transaction)
            let recipients = Set(messages.filter { $0.topic == "push" }.compactMap(\.recipientId))
            var devicesByOwner: [UUID: [RegisteredDevice]] = [:]
            if !recipients.isEmpty, !channels.isDisjoint(with: [.fcm, .apns]) {
                for row in try await transaction.query(
                    "SELECT * FROM devices WHERE owner_id IN (\(placeholders(recipients.count)))",
                    recipients.map { .uuid($0) })
                {
                    let device = try RegisteredDevice(row: row)
                    devicesByOwner[device.ownerId, default: []].append(device)
                }
            }
            let hooks =
                channels.contains(.webhook) && messages.contains { $0.topic == "event" }
                ? try await transaction.query("SELECT * FROM webhooks WHERE deleted_at IS NULL")
                    .map(WebhookSubscription.init(row:)) : []

            var binds: [SQLValue] = []
            var count = 0
            func queuePushes(_ message: OutboxMessage, to devices: [RegisteredDevice]) {
                for device in devices where channels.contains(device.platform.channel) {
                    queue(message, device.platform.channel, device.id.lowercased, device.pushToken, device.locale)
                }
            }
            func queue(
                _ message: OutboxMessage, _ channel: NotificationChannel, _ destination: String, _ target: String,
                _ locale: String?, fallback: NotificationChannel? = nil
            ) {
                binds += [
                    .int(message.id), .uuid(message.eventId), .uuid(message.orderId), .text(channel.rawValue),
                    .text(destination), .text(target), .text(locale),
                    .text(Self.orderingKey(channel, destination, scope: Self.orderingScope(message))), .date(now),
                    .date(now), .date(now), .text(fallback?.rawValue),
                ]
                count += 1
            }
            for message in messages {
                if message.topic == "event" {
                    guard !hooks.isEmpty, let type = OutboxEventHead(json: message.payload)?.type else { continue }
                    for hook in hooks where hook.wants(type) {
                        queue(message, .webhook, hook.id.lowercased, hook.url, nil)
                    }
                } else if message.topic == "sms", channels.contains(.sms), let phone = message.textRecipient {
                    queue(message, .sms, phone, phone, nil)
                } else if message.isCustomerMessage, let recipient = message.recipientId {
                    let customer = customers[message.orderId]
                    let devices = (devicesByOwner[recipient] ?? []).filter { channels.contains($0.platform.channel) }
                    let route = CustomerRoute(
                        preferred: customer?.notify ?? customerChannels, hasDevice: !devices.isEmpty,
                        textablePhone: customer?.phone, optedOut: customer?.optedOut ?? false, enabled: channels)
                    switch route.first {
                    case .push:
                        if let key = message.textKey, CustomerTexts.textOnlyKeys.contains(key) { continue }
                        queuePushes(message, to: devices)
                    case .some(let text):
                        guard let phone = customer?.phone, let channel = text.textChannel else { continue }
                        // A failed text falls back once, to the next text channel the customer can take.
                        queue(
                            message, channel, phone, phone, customer?.locale,
                            fallback: route.fallback(after: text)?.textChannel)
                    case nil:
                        continue
                    }
                } else if message.topic == "push", let recipient = message.recipientId {
                    queuePushes(message, to: devicesByOwner[recipient] ?? [])
                }
            }
            // 12 binds a row; stay far below SQLite's and PostgreSQL's bind limits.
            let perStatement = 500
            var start = 0
            while start < count {
                let rows = min(perStatement, count - start)
                let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', ?, ?, ?, ?)", count: rows)
                    .joined(separator: ", ")
                try await transaction.query(
                    """
                    INSERT INTO notification_deliveries (outbox_id, event_id, order_id, channel, destination_id,
                        target, locale, ordering_key, status, next_attempt_at, budget_from, created_at,
                        fallback_channel)
                    VALUES \(values)
                    ON CONFLICT (outbox_id, channel, destination_id) DO NOTHING
                    """, Array(binds[(start * 12)..<((start + rows) * 12)]))
                start += rows
            }
            try await transaction.query(
                "UPDATE outbox SET sent_at = ?, attempts = attempts + 1 WHERE id IN (\(placeholders(messages.count)))",
                [.date(now)] + messages.map { .int($0.id) })
        }
    }

    /// A destination's messages are sent in order within one scope.
    static func orderingKey(_ channel: NotificationChannel, _ destination: String, scope: UUID) -> String {
        "\(channel.rawValue):\(destination):\(scope.lowercased)"
    }

    /// What a destination's messages are kept in order within: their order's, so "picked up" never overtakes
    /// "assigned". Messages of no order (a sign-in code, an invitation) each stand alone: a code must not wait
    /// behind an invitation the provider keeps refusing.
    static func orderingScope(_ message: OutboxMessage) -> UUID {
        message.orderId == OutboxMessage.noOrder ? message.eventId : message.orderId
    }

    public func claimNotifications(owner: String, limit: Int, leaseUntil: Date, now: Date) async throws
        -> [PendingNotification]
    {
        try await database.transaction { transaction in
            let skipLocked = transaction.dialect == .postgres ? " FOR UPDATE OF d SKIP LOCKED" : ""
            // A row is due when nothing earlier of its ordering key is still pending: a retrying event holds back
            // the later events of its order (for that destination only).
            // At most `perDestinationPerClaim` rows of one destination (a device, a webhook) per claim, so one
            // destination's backlog cannot fill the batch and hold up everyone else's messages behind it.
            // Status and lease again on `d`: PostgreSQL re-checks a locked row's newest version against the outer
            // conditions only, and the subquery may predate another instance's claim (both sent it, seen in tests).
            let due = try await transaction.query(
                """
                SELECT d.id FROM notification_deliveries d WHERE d.id IN (
                    SELECT id FROM (
                        SELECT c.id, ROW_NUMBER() OVER (PARTITION BY c.destination_id ORDER BY c.outbox_id) AS turn
                        FROM notification_deliveries c
                        WHERE c.status = 'PENDING' AND c.next_attempt_at <= ?
                            AND (c.lease_until IS NULL OR c.lease_until < ?)
                            AND NOT EXISTS (
                                SELECT 1 FROM notification_deliveries e
                                WHERE e.ordering_key = c.ordering_key AND e.status = 'PENDING'
                                    AND e.outbox_id < c.outbox_id)
                    ) ranked WHERE turn <= ?)
                    AND d.status = 'PENDING' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until < ?)
                ORDER BY d.outbox_id LIMIT ?\(skipLocked)
                """,
                [
                    .date(now), .date(now), .int(Self.perDestinationPerClaim), .date(now), .date(now), .int(limit),
                ])
            guard !due.isEmpty else { return [] }
            let ids = try due.map { SQLValue.int(try $0.int("id")) }
            let list = placeholders(ids.count)
            try await transaction.query(
                "UPDATE notification_deliveries SET lease_owner = ?, lease_until = ? WHERE id IN (\(list))",
                [.text(owner), .date(leaseUntil)] + ids)
            return try await transaction.query(
                """
                SELECT d.*, o.topic, o.title, o.body, o.text_key, o.text_args, o.payload, w.secret AS webhook_secret
                FROM notification_deliveries d JOIN outbox o ON o.id = d.outbox_id
                LEFT JOIN webhooks w ON w.id = d.destination_id AND w.deleted_at IS NULL
                WHERE d.id IN (\(list)) ORDER BY d.outbox_id
                """, ids
            ).map(PendingNotification.init(row:))
        }
    }

    public func finishNotification(_ notification: PendingNotification, result: NotificationResult, now: Date)
        async throws
    {
        // Sent, retried or dead: one statement, the attempt counted and the lease released.
        let (status, retryAt, error): (String, Date?, String?)
        var providerId: String?
        switch result {
        case .sent(let id):
            (status, retryAt, error) = ("SENT", nil, nil)
            providerId = id
        case .retry(let at, let reason): (status, retryAt, error) = ("PENDING", at, reason)
        case .dead(let reason): (status, retryAt, error) = ("DEAD", nil, reason)
        case .unregistered(let reason):
            try await dropUnregistered(notification, reason: reason, now: now)
            return
        }
        try await database.query(
            """
            UPDATE notification_deliveries SET status = ?, attempts = attempts + 1,
                next_attempt_at = COALESCE(?, next_attempt_at), finished_at = ?, lease_owner = NULL,
                lease_until = NULL, last_error = ?, provider_id = COALESCE(?, provider_id)
            WHERE id = ? AND status = 'PENDING'
            """,
            [
                .text(status), .date(retryAt), .date(retryAt == nil ? now : nil), .text(error), .text(providerId),
                .int(notification.id),
            ])
        if let providerId {
            try await applyEarlyReceipts(channel: notification.channel, providerId: providerId, now: now)
        }
        if case .dead = result, notification.isCustomerText {
            try await queueFallback(deliveryId: notification.id, now: now)
        }
        if retryAt == nil, notification.channel == .sms, TextPayload.isSecret(notification.payload) {
            // A sign-in code is of no use once sent or given up, and must not wait in the database for a reader.
            try await database.query(
                "UPDATE outbox SET body = '' WHERE event_id = ? AND topic = 'sms'", [.uuid(notification.eventId)])
        }
    }

    /// The token reaches no device any more: forget the device, and drop everything queued for the token.
    private func dropUnregistered(_ notification: PendingNotification, reason: String, now: Date) async throws {
        try await database.transaction { transaction in
            try await transaction.query(
                "DELETE FROM devices WHERE push_token = ? AND platform IN (\(Self.platforms(of: notification)))",
                [.text(notification.target)])
            try await transaction.query(
                """
                UPDATE notification_deliveries SET status = 'DROPPED', finished_at = ?, lease_owner = NULL,
                    lease_until = NULL, last_error = ?,
                    attempts = attempts + (CASE WHEN id = ? THEN 1 ELSE 0 END)
                WHERE channel = ? AND target = ? AND status = 'PENDING'
                """,
                [
                    .date(now), .text(reason), .int(notification.id), .text(notification.channel.rawValue),
                    .text(notification.target),
                ])
        }
    }

    /// The platforms whose tokens a channel delivers to, as SQL literals.
    private static func platforms(of notification: PendingNotification) -> String {
        DevicePlatform.allCases.filter { $0.channel == notification.channel }.map { "'\($0.rawValue)'" }
            .joined(separator: ", ")
    }

    public func deadLetters(limit: Int) async throws -> [DeadLetter] {
        try await database.query(
            "SELECT * FROM notification_deliveries WHERE status = 'DEAD' ORDER BY id DESC LIMIT ?", [.int(limit)]
        ).map(DeadLetter.init(row:))
    }

    public func redeliver(id: Int, now: Date) async throws -> Bool {
        !(try await database.query(
            """
            UPDATE notification_deliveries SET status = 'PENDING', next_attempt_at = ?, budget_from = ?,
                finished_at = NULL, lease_owner = NULL, lease_until = NULL
            WHERE id = ? AND status = 'DEAD' RETURNING id
            """, [.date(now), .date(now), .int(id)]
        ).isEmpty)
    }

    public func releaseStaleLeases() async throws {
        guard database.dialect == .sqlite else { return }
        try await database.query(
            "UPDATE notification_deliveries SET lease_owner = NULL, lease_until = NULL WHERE status = 'PENDING'")
    }

    public func notificationBacklog() async throws -> NotificationBacklog {
        let row = try await database.first(
            "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM notification_deliveries WHERE status = 'PENDING'")
        return NotificationBacklog(
            pending: try row?.int("n") ?? 0, oldestPendingSince: row?.optionalDate("oldest"))
    }
}

extension OutboxMessage {
    /// A message to the order's customer: it goes out on the customer's channels, not only to app devices.
    public var isCustomerMessage: Bool {
        topic == "push" && recipientRole == .customer && orderId != OutboxMessage.noOrder
    }
}

extension PendingNotification {
    /// A customer's message sent as a text (pushes of the same message go to devices).
    public var isCustomerText: Bool {
        topic == "push" && (channel == .sms || channel == .whatsapp) && orderId != OutboxMessage.noOrder
    }
}

/// The type, status, time and details of an outbox event document, without decoding the rest.
public struct OutboxEventHead: Decodable, Sendable {
    public var type: String
    public var status: String?
    /// RFC 3339, as `OutboxEventPayload` writes it.
    public var occurredAt: String?
    public var data: [String: String]?

    public init?(json: String) {
        guard let head = try? JSONDecoder().decode(Self.self, from: Data(json.utf8)) else { return nil }
        self = head
    }
}

extension PendingNotification {
    init(row: SQLRow) throws {
        guard let channel = NotificationChannel(rawValue: try row.string("channel")) else {
            throw StoreError.corrupt("notification \(row.optionalString("id") ?? "?")")
        }
        self.init(
            id: try row.int("id"), channel: channel, target: try row.string("target"),
            destinationId: try row.string("destination_id"), locale: row.optionalString("locale"),
            attempts: try row.int("attempts"), budgetFrom: try row.date("budget_from"),
            eventId: try row.uuid("event_id"), orderId: try row.uuid("order_id"), topic: try row.string("topic"),
            title: row.optionalString("title"), body: row.optionalString("body"),
            textKey: row.optionalString("text_key"),
            textArguments: Self.textArguments(row),
            payload: try row.string("payload"), webhookSecret: row.optionalString("webhook_secret"))
    }

    /// The catalog arguments of the push (`text_args`, a JSON object of strings).
    static func textArguments(_ row: SQLRow) -> [String: String] {
        guard let json = row.optionalString("text_args") else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: Data(json.utf8))) ?? [:]
    }
}

extension DeadLetter {
    init(row: SQLRow) throws {
        guard let channel = NotificationChannel(rawValue: try row.string("channel")) else {
            throw StoreError.corrupt("notification \(row.optionalString("id") ?? "?")")
        }
        self.init(
            id: try row.int("id"), channel: channel, destinationId: try row.string("destination_id"),
            target: try row.string("target"), eventId: try row.uuid("event_id"), orderId: try row.uuid("order_id"),
            attempts: try row.int("attempts"), lastError: row.optionalString("last_error"),
            createdAt: try row.date("created_at"), deadAt: row.optionalDate("finished_at"))
    }
}
