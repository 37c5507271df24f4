import Foundation

/// A rider's unfinished tasks seen as one trip: with batching a rider may carry several orders, each with its own
/// task (status sequence, proof, tracking) and its two stops ranked in one sequence. The rider works on the task
/// whose next stop comes first.
public struct RiderTrip: Sendable {
    public struct Leg: Sendable {
        public var task: DeliveryTask
        public var order: Order

        public init(task: DeliveryTask, order: Order) {
            self.task = task
            self.order = order
        }
    }

    public struct Stop: Sendable {
        public var leg: Leg
        public var kind: StopKind
        /// The store of an order already picked up.
        public var done: Bool
    }

    /// Unfinished tasks, the current one first.
    public let legs: [Leg]

    public init(_ legs: [Leg]) {
        self.legs = legs.filter { !$0.task.status.isFinal }.sorted { DeliveryTask.comesFirst($0.task, $1.task) }
    }

    /// The task the rider acts on now.
    public var current: Leg? { legs.first }

    /// Every stop of the trip's orders in sequence, those already made marked done.
    public var stops: [Stop] {
        legs.flatMap { leg in
            if leg.task.status == .returningToStore {
                return [(leg.task.dropoffRank, Stop(leg: leg, kind: .store, done: false))]
            }
            return [
                (leg.task.pickupRank, Stop(leg: leg, kind: .store, done: leg.task.status.nextStop != .store)),
                (leg.task.dropoffRank, Stop(leg: leg, kind: .customer, done: false)),
            ]
        }
        .sorted { ($0.0, $0.1.leg.task.acceptedAt) < ($1.0, $1.1.leg.task.acceptedAt) }
        .map(\.1)
    }

    /// The stops still to make, in sequence, as the planner takes them.
    public var remainingStops: [TripStop] {
        stops.filter { !$0.done }.map { TripStop(orderId: $0.leg.order.id, kind: $0.kind) }
    }
}
