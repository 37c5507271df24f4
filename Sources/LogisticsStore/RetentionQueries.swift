import Foundation
import LogisticsCore

/// How long bookkeeping rows are kept once they have done their job. The order, its events, tasks and proofs are
/// the business record and are never pruned; these tables only grow with traffic.
public struct RetentionPolicy: Sendable {
    /// A client retries a request within minutes; a day covers a phone that was offline overnight.
    public var idempotencyKeys: TimeInterval = 24 * 3600
    /// Sent or dropped pushes and webhook calls, kept for support questions.
    public var finishedNotifications: TimeInterval = 7 * 24 * 3600
    /// Dead letters stay longer: an admin may still redeliver them.
    public var deadLetters: TimeInterval = 30 * 24 * 3600
    /// Outbox events already fanned out, once no queued notification refers to them any more.
    public var sentOutbox: TimeInterval = 7 * 24 * 3600

    public init() {}
}

/// How many rows one pass removed, per table.
public struct PrunedRows: Sendable, Equatable {
    public var idempotencyKeys = 0
    public var notifications = 0
    public var outbox = 0

    public init(idempotencyKeys: Int = 0, notifications: Int = 0, outbox: Int = 0) {
        self.idempotencyKeys = idempotencyKeys
        self.notifications = notifications
        self.outbox = outbox
    }

    public var total: Int { idempotencyKeys + notifications + outbox }
}

extension SQLLogisticsRepository {
    /// Deletes in batches of `batch` rows so SQLite's single writer is never held for long.
    public func prune(_ policy: RetentionPolicy, now: Date, batch: Int = 1000) async throws -> PrunedRows {
        var pruned = PrunedRows()
        let keysBefore = now.addingTimeInterval(-policy.idempotencyKeys)
        pruned.idempotencyKeys = try await deleteInBatches(
            """
            DELETE FROM idempotency_keys WHERE (principal, idempotency_key) IN (
                SELECT principal, idempotency_key FROM idempotency_keys WHERE created_at < ? LIMIT ?)
            """, [.date(keysBefore)], batch: batch)
        let finishedBefore = now.addingTimeInterval(-policy.finishedNotifications)
        let deadBefore = now.addingTimeInterval(-policy.deadLetters)
        // Dropped rows (device or webhook removed) carry no finished_at; their creation time stands in.
        pruned.notifications = try await deleteInBatches(
            """
            DELETE FROM notification_deliveries WHERE id IN (
                SELECT id FROM notification_deliveries
                WHERE (status NOT IN ('PENDING', 'DEAD') AND COALESCE(finished_at, created_at) < ?)
                   OR (status = 'DEAD' AND COALESCE(finished_at, created_at) < ?)
                LIMIT ?)
            """, [.date(finishedBefore), .date(deadBefore)], batch: batch)
        let outboxBefore = now.addingTimeInterval(-policy.sentOutbox)
        pruned.outbox = try await deleteInBatches(
            """
            DELETE FROM outbox WHERE id IN (
                SELECT o.id FROM outbox o
                WHERE o.sent_at IS NOT NULL AND o.sent_at < ?
                  AND NOT EXISTS (SELECT 1 FROM notification_deliveries d WHERE d.outbox_id = o.id)
                LIMIT ?)
            """, [.date(outboxBefore)], batch: batch)
        return pruned
    }

    private func deleteInBatches(_ sql: String, _ binds: [SQLValue], batch: Int) async throws -> Int {
        var total = 0
        while true {
            let rows = try await database.query(sql + " RETURNING 1 AS gone", binds + [.int(batch)])
            total += rows.count
            if rows.count < batch { return total }
        }
    }
}
