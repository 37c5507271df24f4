import Foundation

/// RDR-BR-001, who may accept an offer. Refusals come in this order: the offer and the order (`decide`), the rider
/// (`checkRider`), the order's readiness (`checkReady`). The store asks in steps because the rider's row is read only
/// once the offer and order allow an acceptance.
public enum OfferAcceptance {
    public enum Decision: Sendable, Equatable {
        /// The winner asking again (a lost response, a double tap): answer with the task they already have.
        case alreadyAccepted(taskId: UUID)
        /// Go on to the rider's own state, then assign.
        case mayAccept
    }

    /// The offer and the order, before the rider's row is read. Throws the refusal the rider is shown.
    public static func decide(offer: Offer, order: Order, riderId: UUID, now: Date) throws -> Decision {
        guard offer.riderId == riderId else {
            throw LogisticsError(.forbidden, "This offer was made to another rider")
        }
        if order.assignedRiderId == riderId, let taskId = order.taskId, offer.status == .accepted {
            return .alreadyAccepted(taskId: taskId)
        }
        if order.status == .cancelled { throw LogisticsError(.orderCancelled, "The order was cancelled") }
        if order.assignedRiderId != nil {
            throw LogisticsError(.orderAlreadyAssigned, "Another rider accepted this order first")
        }
        guard offer.isOpen(at: now) else {
            throw LogisticsError(
                .offerExpired,
                offer.status == .open ? "The offer window has closed" : "This offer is no longer open",
                extras: ["expiresAt": .string(RFC3339.string(from: offer.expiresAt))])
        }
        return .mayAccept
    }

    /// The rider's own state: online, and free unless the offer adds the order to the rider's trip (which the store
    /// checks is still the trip it was planned for).
    public static func checkRider(_ rider: Rider, joiningTrip: Bool = false) throws {
        if rider.availability == .offline { throw LogisticsError(.riderNotOnline, "Go online to accept offers") }
        if !joiningTrip && (rider.activeTaskId != nil || rider.availability == .onTask) {
            throw LogisticsError(.riderHasActiveTask, "Finish your current delivery before accepting another")
        }
    }

    /// The order waiting for a rider. An offer made ahead on the preparation time may be accepted while the order is
    /// still PREPARING. (The store's compare-and-set holds the same condition, so an order read before it cannot
    /// have stopped waiting meanwhile.)
    public static func checkReady(_ order: Order) throws {
        guard order.status == .readyForPickup || (order.status == .preparing && order.expectedReadyAt != nil) else {
            throw LogisticsError.invalidTransition(from: order.status, "The order is not ready for pickup")
        }
    }
}
