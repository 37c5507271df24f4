import Foundation
import LogisticsCore

extension SQLLogisticsRepository {
    /// How long an unfinished claim on a key holds. A request's work takes seconds at most; a claim older than
    /// this belongs to a process that died mid-request (kill -9, power loss), and without a limit its key would
    /// answer 409 IDEMPOTENCY_REQUEST_IN_PROGRESS forever.
    public static let idempotencyClaimSeconds: TimeInterval = 120

    /// Claims the key with an in-progress row, so two concurrent requests with one key never both run.
    public func beginIdempotent(principal: String, key: String, requestHash: String, now: Date) async throws
        -> IdempotencyDecision
    {
        let postgres = database as? PostgresDatabase
        let sqlite = database as? SQLiteDatabase
        let claimant: SQLValue = postgres.map { .int($0.presence) } ?? sqlite.map { .int($0.boot) } ?? .null
        do {
            try await database.query(
                """
                INSERT INTO idempotency_keys (principal, idempotency_key, request_hash, status, created_at, claimed_by)
                VALUES (?, ?, ?, 0, ?, ?)
                """, [.text(principal), .text(key), .text(requestHash), .date(now), claimant])
            return .proceed
        } catch StoreError.uniqueViolation {
            guard
                let row = try await database.first(
                    "SELECT * FROM idempotency_keys WHERE principal = ? AND idempotency_key = ?",
                    [.text(principal), .text(key)])
            else { return .inProgress }
            if try row.string("request_hash") != requestHash { return .mismatch }
            let status = try row.int("status")
            if status == 0, let committed = row.optionalString("committed_order").flatMap(UUID.init(uuidString:)) {
                return .committed(orderId: committed)
            }
            if status == 0 {
                let claimed = try row.date("created_at")
                var abandoned = now.timeIntervalSince(claimed) > Self.idempotencyClaimSeconds
                if !abandoned {
                    abandoned = try await claimantIsGone(
                        row.optionalInt("claimed_by"), postgres: postgres, sqlite: sqlite)
                }
                guard abandoned else { return .inProgress }
                // Taken over by one request only: the claim's old time is the compare-and-set.
                let taken = try await database.first(
                    """
                    UPDATE idempotency_keys SET created_at = ?, claimed_by = ?
                    WHERE principal = ? AND idempotency_key = ? AND status = 0 AND created_at = ?
                    RETURNING principal
                    """, [.date(now), claimant, .text(principal), .text(key), .date(claimed)])
                return taken == nil ? .inProgress : .proceed
            }
            return .replay(
                StoredResponse(
                    status: status, body: row.optionalString("response_body") ?? "",
                    contentType: row.optionalString("content_type") ?? "application/json",
                    location: row.optionalString("location")))
        }
    }

    /// Whether the process that claimed a key is gone, so its request will never finish and the claim need not wait
    /// 2 minutes. On PostgreSQL: the instance no longer holds its presence lock (killed, or its database connection
    /// lost; one whose listening connection is being re-established also looks gone for that second). On SQLite: the
    /// claim was made under another boot, since only one process owns the file (a claim without one predates boots).
    private func claimantIsGone(_ claimant: Int?, postgres: PostgresDatabase?, sqlite: SQLiteDatabase?) async throws
        -> Bool
    {
        if let sqlite { return claimant.map(Int64.init) != sqlite.boot }
        guard let postgres, let claimant, Int64(claimant) != postgres.presence else { return false }
        return try await !postgres.isPresent(Int64(claimant))
    }

    public func completeIdempotent(principal: String, key: String, response: StoredResponse) async throws {
        try await database.query(
            """
            UPDATE idempotency_keys SET status = ?, response_body = ?, content_type = ?, location = ?
            WHERE principal = ? AND idempotency_key = ?
            """,
            [
                .int(response.status), .text(response.body), .text(response.contentType), .text(response.location),
                .text(principal), .text(key),
            ])
    }

    /// Releases the key after a failure that changed nothing (a 5xx), so the client can retry. A claim whose
    /// change committed stays: the retry must answer from it.
    public func abandonIdempotent(principal: String, key: String) async throws {
        try await database.query(
            """
            DELETE FROM idempotency_keys
            WHERE principal = ? AND idempotency_key = ? AND status = 0 AND committed_order IS NULL
            """,
            [.text(principal), .text(key)])
    }
}
