import Foundation

/// Turns a validated order request into a new order, with its delivery code when the order needs one.
public struct OrderIntake: Sendable {
    let otp: DeliveryOTP

    public init(otp: DeliveryOTP) {
        self.otp = otp
    }

    public func makeOrder<G: RandomNumberGenerator>(
        _ request: NewOrder, id: UUID, by actor: Actor, now: Date, generator: inout G
    ) -> Order {
        var seed: String? = nil
        var hash: String? = nil
        if request.podType == .otp {
            let newSeed = DeliveryOTP.makeSeed(using: &generator)
            seed = newSeed
            hash = otp.hash(orderId: id, code: otp.code(orderId: id, seed: newSeed))
        }
        // A vendor creating its own order has accepted it; anyone else's order waits for the vendor.
        let status: OrderStatus = actor.role == .vendor ? .preparing : .pendingVendorAcceptance
        // A store's own order is the store's, named or not.
        let vendorId = request.vendorId ?? (actor.role == .vendor ? actor.id : nil)
        return Order(
            id: id, externalRef: request.externalRef, createdBy: actor.id, vendorId: vendorId, vendor: request.vendor,
            customer: request.customer, podType: request.podType, notes: request.notes, status: status,
            otpSeed: seed, otpHash: hash,
            expectedReadyAt: request.preparationMinutes.map { now.addingTimeInterval(Double($0) * 60) },
            createdAt: now, updatedAt: now)
    }
}

/// Who may see and change an order. Callers that may not see it get NOT_FOUND, so customers and
/// vendors never learn that other orders exist.
public enum OrderAccess {
    public static func canView(_ order: Order, _ actor: Actor) -> Bool {
        switch actor.role {
        case .admin, .dispatcher: true
        case .vendor: isStore(of: order, actor)
        case .customer: order.customer.id == actor.id
        case .rider: order.assignedRiderId == actor.id
        }
    }

    /// Marking ready and making offers: the order's vendor and staff.
    public static func canManage(_ order: Order, _ actor: Actor) -> Bool {
        actor.role.isStaff || isStore(of: order, actor)
    }

    /// A store's staff act for the store the order is picked up from, whoever created the order (a dispatcher
    /// taking it on the phone, an import, the store itself). A vendor's token names its store.
    static func isStore(of order: Order, _ actor: Actor) -> Bool {
        actor.role == .vendor && (order.vendorId == actor.id || order.createdBy == actor.id)
    }

    /// A rider has the customer's name, address, masked phone and the order's notes only while the task is under
    /// way: once the delivery has ended, the rider has no reason to reach or find the customer again.
    public static func riderSeesCustomer(_ task: DeliveryTask, _ order: Order) -> Bool {
        !task.status.isFinal && !order.status.isFinal
    }

    /// The order's customer and its vendor may cancel it until it is picked up; after that only staff may (the
    /// event log records who did), since a rider is on the road with the goods.
    public static func canCancel(_ order: Order, _ actor: Actor) -> Bool {
        if actor.role.isStaff { return true }
        let beforePickup = [.pendingVendorAcceptance, .preparing, .readyForPickup, .riderAssigned].contains(
            order.status)
        switch actor.role {
        case .vendor: return isStore(of: order, actor) && beforePickup
        case .customer: return order.customer.id == actor.id && beforePickup
        default: return false
        }
    }
}
