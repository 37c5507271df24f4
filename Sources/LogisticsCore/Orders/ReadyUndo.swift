import Foundation

/// A store that tapped "Ready" too soon takes it back: within a minute, and only while no rider has the parcel. After
/// that riders have been offered the order and may be riding to the store, so the dispatcher decides instead.
public enum ReadyUndo {
    /// How long after "Ready" the store may take it back.
    public static let window: TimeInterval = 60

    public enum Decision: Sendable, Equatable {
        /// Not marked ready (or already undone): nothing to change; a repeated tap gets the order as it is.
        case nothingToUndo
        /// Back to being prepared: nobody has the order, so its open offers are withdrawn.
        case backToPreparing
        /// A rider has accepted and is on the way (or at the store): they keep the order, which waits for the store
        /// as it would for a rider sent ahead.
        case keepRider
    }

    /// Until when the store may still take "Ready" back; nil when it cannot (not ready, or the parcel has left).
    public static func undoableUntil(_ order: Order) -> Date? {
        guard let readyAt = order.readyAt, order.status == .readyForPickup || order.status == .riderAssigned else {
            return nil
        }
        return readyAt.addingTimeInterval(window)
    }

    /// What taking "Ready" back does to this order now; throws the refusal the store is shown.
    public static func decide(_ order: Order, now: Date) throws -> Decision {
        switch order.status {
        case .pendingVendorAcceptance, .preparing:
            return .nothingToUndo
        case .cancelled:
            throw LogisticsError(.orderCancelled, "The order was cancelled")
        case .readyForPickup, .riderAssigned:
            guard let readyAt = order.readyAt else { return .nothingToUndo }
            let deadline = readyAt.addingTimeInterval(window)
            guard now <= deadline else {
                throw LogisticsError(
                    .readyUndoExpired,
                    "\"Ready\" can be taken back for a minute only; it was marked ready at "
                        + "\(RFC3339.string(from: readyAt)). Ask the dispatcher to hold the order.",
                    extras: [
                        "readyAt": .string(RFC3339.string(from: readyAt)),
                        "undoableUntil": .string(RFC3339.string(from: deadline)),
                    ])
            }
            return order.status == .riderAssigned ? .keepRider : .backToPreparing
        default:
            throw LogisticsError(
                .invalidStatusTransition, "A rider has already picked this order up: it can no longer be taken back",
                extras: ["currentStatus": .string(order.status.rawValue), "allowedNext": .strings([])])
        }
    }
}
