import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// The order a request names, as far as its caller may see it: the one rule every order route shares.
struct OrderLookup: Sendable {
    let orders: any OrderRepository

    /// The order in the path, if the caller may see it; otherwise NOT_FOUND (never FORBIDDEN, so ids
    /// cannot be probed). Seeing but not being allowed to act is FORBIDDEN.
    func visibleOrder(_ context: LogisticsRequestContext, allowed: (Order, Actor) -> Bool) async throws -> Order {
        let actor = try context.caller()
        let id = try context.uuidParameter("orderId")
        guard let order = try await orders.order(id: id), OrderAccess.canView(order, actor) else {
            throw LogisticsError.notFound("order")
        }
        guard allowed(order, actor) else { throw LogisticsError(.forbidden, "You may not change this order") }
        return order
    }

    /// The calling customer's own order; any other order is 404, as if it did not exist.
    func customersOwnOrder(_ context: LogisticsRequestContext) async throws -> Order {
        let customer = try context.caller(.customer)
        return try await customersOwnOrder(id: try context.uuidParameter("orderId"), customer: customer)
    }

    /// The same for a caller authenticated some other way (a socket).
    func customersOwnOrder(id: UUID, customer: Actor) async throws -> Order {
        guard let order = try await orders.order(id: id), order.customer.id == customer.id else {
            throw LogisticsError.notFound("order")
        }
        return order
    }
}
