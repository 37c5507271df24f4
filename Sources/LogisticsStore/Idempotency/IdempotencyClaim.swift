import Foundation

/// The `Idempotency-Key` a request is running under. While it is set, every order change the request commits
/// records the key as done in the same transaction, so a crash between that commit and the stored response
/// can never let a retry run the change a second time.
public struct IdempotencyClaim: Sendable {
    public var principal: String
    public var key: String

    public init(principal: String, key: String) {
        self.principal = principal
        self.key = key
    }

    @TaskLocal public static var current: IdempotencyClaim?

    /// Marks the claim as committed for `orderId` inside the caller's transaction. Only an unfinished claim
    /// is touched: a key whose response is stored already says everything.
    static func recordCommit(orderId: UUID, in transaction: any SQLExecutor) async throws {
        guard let claim = current else { return }
        try await transaction.query(
            """
            UPDATE idempotency_keys SET committed_order = ?
            WHERE principal = ? AND idempotency_key = ? AND status = 0
            """, [.uuid(orderId), .text(claim.principal), .text(claim.key)])
    }
}
