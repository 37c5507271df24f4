import Foundation
import LogisticsCore

/// How long bookkeeping rows and personal data are kept. The order, its events, tasks and code proofs are the
/// business record and are never pruned; the bookkeeping tables only grow with traffic, and riders' movements and
/// photos of customers' doors are personal data kept no longer than a dispute needs them (GDPR Art. 5(1)(e)).
public struct RetentionPolicy: Sendable {
    /// A client retries a request within minutes; a day covers a phone that was offline overnight.
    public var idempotencyKeys: TimeInterval = 24 * 3600
    /// Sent or dropped pushes and webhook calls, kept for support questions.
    public var finishedNotifications: TimeInterval = 7 * 24 * 3600
    /// Dead letters stay longer: an admin may still redeliver them.
    public var deadLetters: TimeInterval = 30 * 24 * 3600
    /// Outbox events already fanned out, once no queued notification refers to them any more.
    public var sentOutbox: TimeInterval = 7 * 24 * 3600
    /// Riders' location history, by the time the server received each fix: a complaint about a route or a late
    /// delivery comes within weeks; the live position and the order's events do not depend on it.
    public var locationFixes: TimeInterval = 30 * 24 * 3600
    /// Photo proofs, by the time they were stored: long enough for a customer's complaint and a card dispute.
    /// The row goes with the photo; the order's `ProofOfDeliveryAccepted` event still records that one existed.
    public var photos: TimeInterval = 90 * 24 * 3600
    /// Ended orders' customer details (name, phone, address, notes, the rider's issue notes), counted from the
    /// order's end: what the event log and accounting need (ids, statuses, times, the place to about 100 m) stays.
    public var personalData: TimeInterval = 90 * 24 * 3600

    public init() {}

    public init(locationFixesDays: Int, photosDays: Int, personalDataDays: Int = 90) {
        locationFixes = TimeInterval(locationFixesDays) * 24 * 3600
        photos = TimeInterval(photosDays) * 24 * 3600
        personalData = TimeInterval(personalDataDays) * 24 * 3600
    }
}

/// How many rows one pass removed, per table.
public struct PrunedRows: Sendable, Equatable {
    public var idempotencyKeys = 0
    public var notifications = 0
    public var outbox = 0
    public var locationFixes = 0
    /// Photo proof rows; their files go in the same pass, as blobs no row refers to (`BlobSweep`).
    public var photos = 0
    /// ETAs kept for accuracy figures; they go with the fixes they were made from.
    public var etaPredictions = 0
    /// Ended orders whose customer details were anonymised (and customers left with no other order).
    public var anonymisedOrders = 0

    public init(
        idempotencyKeys: Int = 0, notifications: Int = 0, outbox: Int = 0, locationFixes: Int = 0, photos: Int = 0
    ) {
        self.idempotencyKeys = idempotencyKeys
        self.notifications = notifications
        self.outbox = outbox
        self.locationFixes = locationFixes
        self.photos = photos
    }

    public var total: Int {
        idempotencyKeys + notifications + outbox + locationFixes + photos + etaPredictions + anonymisedOrders
    }
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
        // PostgreSQL drops whole days of fixes (`rollLocationPartitions`); only those waiting in the default
        // partition, for a day without a partition of its own, go row by row.
        let fixes = database.dialect == .postgres ? "rider_locations_default" : "rider_locations"
        pruned.locationFixes = try await deleteInBatches(
            "DELETE FROM \(fixes) WHERE id IN (SELECT id FROM \(fixes) WHERE received_at < ? LIMIT ?)",
            [.date(now.addingTimeInterval(-policy.locationFixes))], batch: batch)
        pruned.etaPredictions = try await deleteInBatches(
            """
            DELETE FROM eta_predictions WHERE (order_id, predicted_at) IN (
                SELECT order_id, predicted_at FROM eta_predictions WHERE predicted_at < ? LIMIT ?)
            """, [.date(now.addingTimeInterval(-policy.locationFixes))], batch: batch)
        pruned.photos = try await deleteInBatches(
            """
            DELETE FROM proofs_of_delivery WHERE id IN (
                SELECT id FROM proofs_of_delivery WHERE type = ? AND created_at < ? LIMIT ?)
            """, [.text(ProofOfDeliveryType.photo.rawValue), .date(now.addingTimeInterval(-policy.photos))],
            batch: batch)
        pruned.anonymisedOrders = try await anonymise(
            endedBefore: now.addingTimeInterval(-policy.personalData), now: now, batch: batch)
        return pruned
    }

    /// Blanks the customer's details of orders that ended before `endedBefore`, batch by batch: name, phone,
    /// address and notes, the rider's issue notes, the door's place rounded to about 100 m; then the customer
    /// records no unanonymised order refers to any more.
    private func anonymise(endedBefore: Date, now: Date, batch: Int) async throws -> Int {
        var total = 0
        while true {
            let done = try await database.transaction { transaction in
                let ids = try await transaction.query(
                    """
                    SELECT id FROM orders WHERE anonymised_at IS NULL AND status IN \(OrderStatus.finalSQLList)
                        AND updated_at < ? LIMIT ?
                    """, [.date(endedBefore), .int(batch)]
                ).map { SQLValue.text(try $0.string("id")) }
                guard !ids.isEmpty else { return 0 }
                let list = Array(repeating: "?", count: ids.count).joined(separator: ", ")
                try await transaction.query(
                    """
                    UPDATE orders SET customer_name = ?, customer_phone = '', customer_address = '', notes = NULL,
                        customer_lat = ROUND(CAST(customer_lat AS NUMERIC), 3),
                        customer_lon = ROUND(CAST(customer_lon AS NUMERIC), 3), anonymised_at = ?
                    WHERE id IN (\(list))
                    """, [.text(Self.anonymisedName), .date(now)] + ids)
                try await transaction.query("UPDATE delivery_issues SET note = NULL WHERE order_id IN (\(list))", ids)
                // The stars stay in the rider's average; the customer's own words go with their other details.
                try await transaction.query(
                    "UPDATE delivery_ratings SET comment = NULL WHERE order_id IN (\(list))", ids)
                return ids.count
            }
            total += done
            if done < batch { break }
        }
        if total > 0 {
            try await database.query(
                """
                UPDATE customers SET name = NULL, phone = NULL
                WHERE (name IS NOT NULL OR phone IS NOT NULL)
                    AND EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = customers.id)
                    AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = customers.id AND o.anonymised_at IS NULL)
                """)
        }
        return total
    }

    /// What an anonymised order calls its customer.
    public static let anonymisedName = "(anonymised)"

    /// Which of these photo files a proof still refers to; the others are orphans (`BlobSweep`).
    public func referencedBlobs(among digests: [String]) async throws -> Set<String> {
        var referenced: Set<String> = []
        // A few hundred binds per query stays inside both databases' limits.
        for start in stride(from: 0, to: digests.count, by: 500) {
            let chunk = digests[start..<min(start + 500, digests.count)]
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let rows = try await database.query(
                "SELECT DISTINCT sha256 FROM proofs_of_delivery WHERE sha256 IN (\(marks))", chunk.map { .text($0) })
            for row in rows { referenced.insert(try row.string("sha256")) }
        }
        return referenced
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
