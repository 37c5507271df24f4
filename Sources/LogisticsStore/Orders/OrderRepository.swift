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
    func listOrders(status: OrderStatus?, limit: Int, cursor: String?) async throws -> OrderPage
    func events(orderId: UUID) async throws -> [OrderEvent]
}
