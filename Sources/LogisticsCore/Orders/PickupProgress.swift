import Foundation

/// What the store is told of the rider coming for an order, read from the order and its event log: on the way,
/// at the store since when, or gone with the parcel. Only the current task's events count: after a reassignment the
/// first rider's arrival is not the new rider's.
public struct PickupProgress: Sendable, Equatable {
    public enum Stage: String, Sendable, Codable {
        /// No rider has the order yet.
        case waitingForRider = "WAITING_FOR_RIDER"
        case onTheWay = "ON_THE_WAY"
        case atTheStore = "AT_THE_STORE"
        case pickedUp = "PICKED_UP"
    }

    public var stage: Stage
    public var arrivedAt: Date?
    public var pickedUpAt: Date?

    public init(stage: Stage, arrivedAt: Date? = nil, pickedUpAt: Date? = nil) {
        self.stage = stage
        self.arrivedAt = arrivedAt
        self.pickedUpAt = pickedUpAt
    }

    public static func of(_ order: Order, events: [OrderEvent]) -> PickupProgress {
        guard let taskId = order.taskId, order.assignedRiderId != nil else {
            return PickupProgress(stage: .waitingForRider)
        }
        let steps = events.filter { $0.taskId == taskId && $0.type == OrderEventType.deliveryStatusUpdated }
        // The rider's tap time, as the event log keeps it (an offline tap keeps its own time).
        let arrived = steps.last { $0.status == TaskStatus.arrivedAtStore.rawValue }?.occurredAt
        let pickedUp = steps.last { $0.status == TaskStatus.pickedUp.rawValue }?.occurredAt
        switch order.status {
        case .riderAssigned:
            return PickupProgress(stage: arrived == nil ? .onTheWay : .atTheStore, arrivedAt: arrived)
        case .inTransit, .arrivedAtDestination, .delivered, .failed, .returningToStore, .returned:
            return PickupProgress(stage: .pickedUp, arrivedAt: arrived, pickedUpAt: pickedUp)
        default:
            return PickupProgress(stage: .waitingForRider)
        }
    }
}
