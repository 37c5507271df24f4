import Foundation
import LogisticsCore
import LogisticsStore
import RoadRouting

/// A task as its rider sees it: what to do next, where, and what proof is needed.
struct TaskRepresentation: Encodable {
    var taskId: String
    var orderId: String
    var externalRef: String?
    var status: TaskStatus
    var allowedNext: [TaskStatus]
    var podType: ProofOfDeliveryType
    var proofOfDelivery: ProofState
    var vendor: VendorStop
    /// `null` once the task has ended (`OrderAccess.riderSeesCustomer`); the key stays, as the contract lists it.
    var customer: NullWhenAbsent<CustomerForRider>
    var nextStop: Stop?
    /// The route to `nextStop` from the rider's last known position (active task only; null without a fix or map).
    var route: Route?
    var notes: String?
    /// How far from the customer "Arrived at Destination" may be tapped without the app asking first.
    var geofenceRadiusM: Double
    var acceptedAt: Date
    var updatedAt: Date
    /// Every stop of the rider's trip in sequence: this task's two, or with batching those of every order the
    /// rider carries. The rider works through them in this order; each names the task whose status it moves.
    var stops: [TripStopRepresentation]

    struct TripStopRepresentation: Encodable {
        var sequence: Int
        var kind: StopKind
        var taskId: String
        var orderId: String
        var externalRef: String?
        var name: String
        var address: String
        var location: GeoPoint
        /// The status of the stop's task (two stops share one).
        var status: TaskStatus
        var done: Bool
        /// The first stop not yet made: where the rider is heading.
        var current: Bool
    }

    struct ProofState: Encodable {
        var accepted: Bool
        var overridden: Bool
        var otpAttemptsRemaining: Int
        var otpLocked: Bool
        /// The code was locked: only a dispatcher's override completes the delivery (a photo is evidence).
        var awaitingOverride: Bool
    }

    /// The customer without their full phone number.
    struct CustomerForRider: Encodable {
        var name: String
        var address: String
        var location: GeoPoint
        var phoneMasked: String
        /// The operator's call-masking number (`LOGISTICS_RIDER_CONTACT_NUMBER`), which connects the rider to the
        /// customer without either learning the other's number; absent when none is configured.
        var phone: String?
    }

    struct Stop: Encodable {
        var kind: StopKind
        var name: String
        var address: String
        var location: GeoPoint
    }

    /// `trip`, the rider's unfinished tasks, gives the stops when the task is one of several.
    init(_ task: DeliveryTask, _ order: Order, delivery: DeliverySettings, trip: RiderTrip? = nil) {
        taskId = task.id.lowercased
        orderId = order.id.lowercased
        externalRef = order.externalRef
        status = task.status
        allowedNext = task.status.allowedNext
        podType = order.podType
        proofOfDelivery = ProofState(
            accepted: task.podAccepted, overridden: task.podOverride,
            otpAttemptsRemaining: max(0, DeliveryRules.maximumOTPAttempts - task.otpFailedAttempts),
            otpLocked: task.otpLocked, awaitingOverride: DeliveryRules.awaitsOverride(task, order))
        vendor = order.vendor
        let underWay = OrderAccess.riderSeesCustomer(task, order)
        let contact = CustomerForRider(
            name: order.customer.name, address: order.customer.address, location: order.customer.location,
            phoneMasked: order.customer.maskedPhone, phone: delivery.riderContactNumber)
        customer = NullWhenAbsent(underWay ? contact : nil)
        switch underWay ? task.status.nextStop : nil {
        case .store:
            nextStop = Stop(
                kind: .store, name: order.vendor.name, address: order.vendor.address, location: order.vendor.location)
        case .customer:
            nextStop = Stop(
                kind: .customer, name: order.customer.name, address: order.customer.address,
                location: order.customer.location)
        case nil:
            nextStop = nil
        }
        notes = underWay ? order.notes : nil
        geofenceRadiusM = delivery.geofenceRadiusM
        acceptedAt = task.acceptedAt
        updatedAt = task.updatedAt
        let sequence: [RiderTrip.Stop]
        if let trip, trip.legs.contains(where: { $0.task.id == task.id }) {
            sequence = trip.stops
        } else if underWay {
            sequence = RiderTrip([RiderTrip.Leg(task: task, order: order)]).stops
        } else {
            // An ended task: the rider keeps nothing of the customer, the stops included.
            sequence = []
        }
        let current = sequence.firstIndex { !$0.done }
        stops = sequence.enumerated().map { index, stop in
            let (stopTask, stopOrder) = (stop.leg.task, stop.leg.order)
            let atStore = stop.kind == .store
            return TripStopRepresentation(
                sequence: index + 1, kind: stop.kind, taskId: stopTask.id.lowercased,
                orderId: stopOrder.id.lowercased, externalRef: stopOrder.externalRef,
                name: atStore ? stopOrder.vendor.name : stopOrder.customer.name,
                address: atStore ? stopOrder.vendor.address : stopOrder.customer.address,
                location: atStore ? stopOrder.vendor.location : stopOrder.customer.location, status: stopTask.status,
                done: stop.done, current: index == current)
        }
    }

    /// The task as its rider sees it, with the whole trip's stops when it is one of several (batching).
    static func forRider(
        _ task: DeliveryTask, _ order: Order, deliveries: any DeliveryRepository, delivery: DeliverySettings
    ) async throws -> TaskRepresentation {
        // A task never on a trip is its own trip.
        let trip = task.wasBatched ? try await deliveries.activeTrip(riderId: task.riderId) : nil
        return TaskRepresentation(task, order, delivery: delivery, trip: trip)
    }
}

/// An optional that is written as `null` instead of being left out, for keys a client may count on.
struct NullWhenAbsent<Wrapped: Encodable>: Encodable {
    var value: Wrapped?

    init(_ value: Wrapped?) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}
