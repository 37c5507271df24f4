import Foundation
import LogisticsCore

/// Where notifications go: customers' and riders' devices, and other systems' webhooks.
extension SQLLogisticsRepository {
    public func registerDevice(_ device: RegisteredDevice, now: Date) async throws -> RegisteredDevice {
        try await database.transaction { transaction in
            // A token is one app install: if another account signed in on it before, that account stops getting
            // this phone's pushes.
            try await transaction.query(
                "DELETE FROM devices WHERE push_token = ? AND NOT (owner_id = ? AND device_id = ?)",
                [.text(device.pushToken), .uuid(device.ownerId), .text(device.deviceId)])
            let row = try await transaction.first(
                """
                INSERT INTO devices (id, owner_id, owner_role, device_id, platform, push_token, locale, created_at,
                    updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (owner_id, device_id) DO UPDATE SET platform = excluded.platform,
                    push_token = excluded.push_token, locale = excluded.locale, updated_at = excluded.updated_at
                RETURNING *
                """,
                [
                    .uuid(device.id), .uuid(device.ownerId), .text(device.ownerRole.rawValue), .text(device.deviceId),
                    .text(device.platform.rawValue), .text(device.pushToken), .text(device.locale), .date(now),
                    .date(now),
                ])
            guard let row else { throw StoreError.corrupt("device upsert returned nothing") }
            // An account keeps its newest devices only: every push goes to each of them, so thousands of junk
            // registrations would make one push thousands of provider calls.
            let dropped = try await transaction.query(
                """
                DELETE FROM devices WHERE owner_id = ? AND id NOT IN (
                    SELECT id FROM devices WHERE owner_id = ? ORDER BY updated_at DESC, id DESC LIMIT ?)
                RETURNING id
                """, [.uuid(device.ownerId), .uuid(device.ownerId), .int(Self.devicesPerOwner)])
            for old in dropped {
                try await transaction.query(
                    """
                    UPDATE notification_deliveries SET status = 'DROPPED', last_error = 'device replaced by newer ones'
                    WHERE destination_id = ? AND status = 'PENDING'
                    """, [.text(try old.string("id"))])
            }
            return try RegisteredDevice(row: row)
        }
    }

    /// Devices one account keeps; registering another drops the least recently registered.
    public static let devicesPerOwner = 10

    public func removeDevice(ownerId: UUID, deviceId: String) async throws -> Bool {
        try await database.transaction { transaction in
            let removed = try await transaction.query(
                "DELETE FROM devices WHERE owner_id = ? AND device_id = ? RETURNING id",
                [.uuid(ownerId), .text(deviceId)])
            for row in removed {
                try await transaction.query(
                    """
                    UPDATE notification_deliveries SET status = 'DROPPED', last_error = 'device removed'
                    WHERE destination_id = ? AND status = 'PENDING'
                    """, [.text(try row.string("id"))])
            }
            return !removed.isEmpty
        }
    }

    public func createWebhook(_ webhook: WebhookSubscription, createdBy: UUID) async throws {
        try await database.query(
            "INSERT INTO webhooks (id, url, events, secret, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .uuid(webhook.id), .text(webhook.url), .text(webhook.events.joined(separator: ",")),
                .text(webhook.secret), .uuid(createdBy), .date(webhook.createdAt),
            ])
    }

    public func webhooks() async throws -> [WebhookSubscription] {
        try await database.query("SELECT * FROM webhooks WHERE deleted_at IS NULL ORDER BY created_at, id")
            .map(WebhookSubscription.init(row:))
    }

    public func rewriteWebhookSecrets(_ rewrite: @Sendable (String) -> String?) async throws -> Int {
        var changed = 0
        for row in try await database.query("SELECT id, secret FROM webhooks ORDER BY id") {
            let secret = try row.string("secret")
            guard let replacement = rewrite(secret) else { continue }
            let updated = try await database.query(
                "UPDATE webhooks SET secret = ? WHERE id = ? AND secret = ? RETURNING id",
                [.text(replacement), .text(try row.string("id")), .text(secret)])
            changed += updated.count
        }
        return changed
    }

    public func deleteWebhook(id: UUID, now: Date) async throws -> Bool {
        try await database.transaction { transaction in
            let deleted = try await transaction.query(
                "UPDATE webhooks SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL RETURNING id",
                [.date(now), .uuid(id)])
            try await transaction.query(
                """
                UPDATE notification_deliveries SET status = 'DROPPED', last_error = 'webhook deleted'
                WHERE destination_id = ? AND status = 'PENDING'
                """, [.uuid(id)])
            return !deleted.isEmpty
        }
    }
}

extension RegisteredDevice {
    init(row: SQLRow) throws {
        guard let role = Role(rawValue: try row.string("owner_role")),
            let platform = DevicePlatform(rawValue: try row.string("platform"))
        else { throw StoreError.corrupt("device \(row.optionalString("id") ?? "?")") }
        self.init(
            id: try row.uuid("id"), ownerId: try row.uuid("owner_id"), ownerRole: role,
            deviceId: try row.string("device_id"), platform: platform, pushToken: try row.string("push_token"),
            locale: row.optionalString("locale"), updatedAt: try row.date("updated_at"))
    }
}

extension WebhookSubscription {
    init(row: SQLRow) throws {
        self.init(
            id: try row.uuid("id"), url: try row.string("url"),
            events: try row.string("events").split(separator: ",").map(String.init),
            secret: try row.string("secret"), createdAt: try row.date("created_at"))
    }
}
