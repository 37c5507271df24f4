import Foundation
import LogisticsCore

/// A page of orders, newest first.
public struct OrderPage: Sendable {
    public var orders: [Order]
    public var nextCursor: String?
}

/// Orders and their immutable event log.
public protocol OrderRepository: Sendable {
    func createOrder(_ order: Order, by actor: Actor, now: Date) async throws -> Order
    func order(id: UUID) async throws -> Order?
    func markReady(orderId: UUID, by actor: Actor, now: Date) async throws -> Order
    func cancelOrder(orderId: UUID, reason: String?, by actor: Actor, now: Date) async throws -> Order
    func listOrders(_ filter: OrderFilter, limit: Int, cursor: String?) async throws -> OrderPage
    func events(orderId: UUID) async throws -> [OrderEvent]
    /// Every order's events received from `since` on, oldest first, at most `limit`, with the order's reference.
    func recentEvents(since: Date, limit: Int) async throws -> [(OrderEvent, externalRef: String?)]
}

/// Which orders a list shows; every field narrows it, nil fields do not.
public struct OrderFilter: Sendable, Equatable {
    public var status: OrderStatus?
    /// true: not delivered, cancelled or failed; false: only those.
    public var open: Bool?
    public var riderId: UUID?
    public var vendorId: UUID?
    public var createdFrom: Date?
    public var createdTo: Date?
    /// Part of the reference, the customer's phone or the customer's name, in any case.
    public var text: String?

    public init(
        status: OrderStatus? = nil, open: Bool? = nil, riderId: UUID? = nil, vendorId: UUID? = nil,
        createdFrom: Date? = nil, createdTo: Date? = nil, text: String? = nil
    ) {
        self.status = status
        self.open = open
        self.riderId = riderId
        self.vendorId = vendorId
        self.createdFrom = createdFrom
        self.createdTo = createdTo
        self.text = text
    }
}
