import Foundation
import LogisticsCore

/// A page of orders, newest first.
public struct OrderPage: Sendable {
    public var orders: [Order]
    public var nextCursor: String?
}

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

/// A row of the outbox: an event for fan-out, or a push notification for one recipient.
public struct OutboxMessage: Sendable, Equatable {
    public var id: Int
    public var eventId: UUID
    public var orderId: UUID
    public var topic: String
    public var recipientId: UUID?
    public var recipientRole: Role?
    public var title: String?
    public var body: String?
    public var payload: String
    public var createdAt: Date
    public var sentAt: Date?
}

/// A rider as the dispatcher's map shows them: the account and the newest position, if any.
public struct FleetRider: Sendable {
    public var rider: Rider
    public var lastSeen: (position: GeoPoint, at: Date)?
}

/// Everything the service persists. One SQL implementation serves SQLite and PostgreSQL; each
/// state change runs in one transaction with its event-log and outbox rows.
public protocol LogisticsRepository: Sendable {
    // Riders and customers
    func provisionRider(_ actor: Actor, now: Date) async throws -> Rider
    func provisionCustomer(_ actor: Actor, now: Date) async throws
    func rider(id: UUID) async throws -> Rider?
    func setRiderSuspended(id: UUID, suspended: Bool, now: Date) async throws -> Rider
    func setAvailability(riderId: UUID, to availability: RiderAvailability, now: Date) async throws -> Rider
    /// Riders for the dispatcher's map, those with the newest fixes first (optionally of one availability).
    func fleet(availability: RiderAvailability?, limit: Int) async throws -> [FleetRider]

    // Orders
    func createOrder(_ order: Order, by actor: Actor, now: Date) async throws -> Order
    func order(id: UUID) async throws -> Order?
    func markReady(orderId: UUID, by actor: Actor, now: Date) async throws -> Order
    func cancelOrder(orderId: UUID, reason: String?, by actor: Actor, now: Date) async throws -> Order
    func listOrders(status: OrderStatus?, limit: Int, cursor: String?) async throws -> OrderPage
    func events(orderId: UUID) async throws -> [OrderEvent]

    // Outbox
    func pendingOutbox(limit: Int) async throws -> [OutboxMessage]
    func outbox(orderId: UUID) async throws -> [OutboxMessage]

    // Idempotency keys
    func beginIdempotent(principal: String, key: String, requestHash: String, now: Date) async throws
        -> IdempotencyDecision
    func completeIdempotent(principal: String, key: String, response: StoredResponse) async throws
    func abandonIdempotent(principal: String, key: String) async throws

    // Tracking links and what open sockets are re-checked against
    func createTrackingLink(id: UUID, orderId: UUID, by actor: Actor, now: Date) async throws
    func trackingLink(id: UUID) async throws -> StoredTrackingLink?
    func revokeTrackingLink(id: UUID, orderId: UUID, now: Date) async throws -> Bool
    func revokedTrackingLinks(among ids: Set<UUID>) async throws -> Set<UUID>
    func suspendedRiders(among ids: Set<UUID>) async throws -> Set<UUID>

    // Housekeeping
    func prune(_ policy: RetentionPolicy, now: Date, batch: Int) async throws -> PrunedRows
    /// Which of these blob digests a proof still refers to.
    func referencedBlobs(among digests: [String]) async throws -> Set<String>

    func ping() async throws
}
