import Foundation
import LogisticsCore

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
    /// The catalog key of a notification's words (`customer.pickedUp`), nil for events and plain texts.
    public var textKey: String? = nil
}

/// The outbox as the fan-out and the dispatcher's notification list read it.
public protocol OutboxRepository: Sendable {
    func pendingOutbox(limit: Int) async throws -> [OutboxMessage]
    func outbox(orderId: UUID) async throws -> [OutboxMessage]
}
