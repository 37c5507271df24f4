import Foundation
import LogisticsCore

/// What an idempotency key says about a request about to run.
public enum IdempotencyDecision: Sendable, Equatable {
    /// First time this key is seen: run the request, then record its response.
    case proceed
    /// The same request ran before: replay its response.
    case replay(StoredResponse)
    /// The key was used for a different request body.
    case mismatch
    /// The first request with this key committed its change to this order but its response was never stored
    /// (the process died in between): answer from the order as it is, never run the change again.
    case committed(orderId: UUID)
    /// The first request with this key is still running (claimed less than `idempotencyClaimSeconds` ago).
    case inProgress
}

public struct StoredResponse: Sendable, Equatable {
    public var status: Int
    public var body: String
    public var contentType: String
    public var location: String?

    public init(status: Int, body: String, contentType: String, location: String?) {
        self.status = status
        self.body = body
        self.contentType = contentType
        self.location = location
    }
}

/// Idempotency keys: a request's claim, its stored answer, or its release when it failed.
public protocol IdempotencyRepository: Sendable {
    func beginIdempotent(principal: String, key: String, requestHash: String, now: Date) async throws
        -> IdempotencyDecision
    func completeIdempotent(principal: String, key: String, response: StoredResponse) async throws
    func abandonIdempotent(principal: String, key: String) async throws
}
