import Foundation
import LogisticsCore

extension SQLLogisticsRepository {
    /// Claims the key with an in-progress row, so two concurrent requests with one key never both run.
    public func beginIdempotent(principal: String, key: String, requestHash: String, now: Date) async throws
        -> IdempotencyDecision
    {
        do {
            try await database.query(
                """
                INSERT INTO idempotency_keys (principal, idempotency_key, request_hash, status, created_at)
                VALUES (?, ?, ?, 0, ?)
                """, [.text(principal), .text(key), .text(requestHash), .date(now)])
            return .proceed
        } catch StoreError.uniqueViolation {
            guard
                let row = try await database.first(
                    "SELECT * FROM idempotency_keys WHERE principal = ? AND idempotency_key = ?",
                    [.text(principal), .text(key)])
            else { return .inProgress }
            if try row.string("request_hash") != requestHash { return .mismatch }
            let status = try row.int("status")
            if status == 0 { return .inProgress }
            return .replay(
                StoredResponse(
                    status: status, body: row.optionalString("response_body") ?? "",
                    contentType: row.optionalString("content_type") ?? "application/json",
                    location: row.optionalString("location")))
        }
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

    /// Releases the key after a failure that changed nothing (a 5xx), so the client can retry.
    public func abandonIdempotent(principal: String, key: String) async throws {
        try await database.query(
            "DELETE FROM idempotency_keys WHERE principal = ? AND idempotency_key = ? AND status = 0",
            [.text(principal), .text(key)])
    }
}
