import Foundation
import LogisticsCore

/// What providers say about messages they took (Twilio's status callbacks, WhatsApp's statuses).
extension SQLLogisticsRepository {
    public func recordProviderStatus(
        channel: NotificationChannel, providerId: String, status: String, error: String?, now: Date
    ) async throws -> Bool {
        // Receipts come out of order (a late `sent` after `delivered`): a later state is never taken back.
        let laterOrSame = Self.receiptStages.filter { $0.value >= (Self.receiptStages[status] ?? 0) }.keys.sorted()
        let updated = try await database.query(
            """
            UPDATE notification_deliveries SET provider_status = ?, last_error = COALESCE(?, last_error)
            WHERE channel = ? AND provider_id = ?
                AND COALESCE(provider_status, '') NOT IN (\(placeholders(laterOrSame.count)))
            RETURNING id, order_id
            """,
            [.text(status), .text(error), .text(channel.rawValue), .text(providerId)] + laterOrSame.map { .text($0) })
        if status == "failed" || status == "undelivered" {
            for row in updated where try row.uuid("order_id") != OutboxMessage.noOrder {
                try await queueFallback(deliveryId: try row.int("id"), now: now)
            }
        }
        if updated.isEmpty {
            let known =
                try await database.first(
                    "SELECT id FROM notification_deliveries WHERE channel = ? AND provider_id = ?",
                    [.text(channel.rawValue), .text(providerId)]) != nil
            if !known {
                try await keepEarlyReceipt(
                    channel: channel, providerId: providerId, status: status, error: error, now: now)
            }
            return known
        }
        return true
    }

    /// How far along a message a provider's status puts it; the end states are equals.
    static let receiptStages = ["queued": 0, "sent": 1, "delivered": 2, "read": 2, "failed": 2, "undelivered": 2]

    /// How long a receipt for a message id the server has not recorded yet is kept for it.
    static let earlyReceiptSeconds: TimeInterval = 600

    /// A provider can report on a message before its answer to the send has been stored (its callback races the
    /// response): the receipt waits here, briefly, for the id. Receipts for messages of other systems on the same
    /// account simply run out.
    private func keepEarlyReceipt(
        channel: NotificationChannel, providerId: String, status: String, error: String?, now: Date
    ) async throws {
        try await database.query(
            "DELETE FROM provider_receipts WHERE received_at < ?",
            [.date(now.addingTimeInterval(-Self.earlyReceiptSeconds))])
        try await database.query(
            """
            INSERT INTO provider_receipts (channel, provider_id, status, error, received_at) VALUES (?, ?, ?, ?, ?)
            """, [.text(channel.rawValue), .text(providerId), .text(status), .text(error), .date(now)])
    }

    /// Applies the receipts that came before the message's id was recorded, earliest stage first.
    func applyEarlyReceipts(channel: NotificationChannel, providerId: String, now: Date) async throws {
        let early = try await database.query(
            "DELETE FROM provider_receipts WHERE channel = ? AND provider_id = ? RETURNING status, error",
            [.text(channel.rawValue), .text(providerId)])
        let receipts = try early.map { (status: try $0.string("status"), error: $0.optionalString("error")) }
            .sorted { (Self.receiptStages[$0.status] ?? 0) < (Self.receiptStages[$1.status] ?? 0) }
        for receipt in receipts {
            _ = try await recordProviderStatus(
                channel: channel, providerId: providerId, status: receipt.status, error: receipt.error, now: now)
        }
    }
}
