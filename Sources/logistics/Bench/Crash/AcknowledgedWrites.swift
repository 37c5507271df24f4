import Foundation
import LogisticsCore
import Synchronization

/// Every write the server answered with success during a crash round: per order, the furthest status it
/// acknowledged and the ids of the status events the rider sent.
final class AcknowledgedWrites: Sendable {
    struct Order: Sendable {
        var status: OrderStatus
        var eventIds: [String] = []
        /// Requests answered with success for this order.
        var writes = 1
    }

    private let orders = Mutex<[String: Order]>([:])

    func reached(_ orderId: String, _ status: String) {
        guard let status = OrderStatus(rawValue: status) else { return }
        orders.withLock { orders in
            if var order = orders[orderId] {
                order.status = status
                order.writes += 1
                orders[orderId] = order
            } else {
                orders[orderId] = Order(status: status)
            }
        }
    }

    func reached(_ orderId: String, task status: String, eventId: String) {
        guard let orderStatus = TaskStatus(rawValue: status)?.orderStatus else { return }
        orders.withLock { orders in
            orders[orderId, default: Order(status: orderStatus, writes: 0)].status = orderStatus
            orders[orderId]?.eventIds.append(eventId)
            orders[orderId]?.writes += 1
        }
    }

    var snapshot: [String: Order] { orders.withLock { $0 } }

    /// An order's place on the happy path, so "at least as far as acknowledged" can be checked.
    static func progress(_ status: OrderStatus) -> Int {
        switch status {
        case .pendingVendorAcceptance, .preparing: 0
        case .readyForPickup: 1
        case .riderAssigned: 2
        case .inTransit: 3
        case .arrivedAtDestination: 4
        case .returningToStore: 5
        case .delivered, .cancelled, .failed, .returned: 6
        }
    }
}
