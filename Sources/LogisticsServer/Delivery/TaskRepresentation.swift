import Foundation
import LogisticsCore
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

    struct ProofState: Encodable {
        var accepted: Bool
        var overridden: Bool
        var otpAttemptsRemaining: Int
        var otpLocked: Bool
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

    init(_ task: DeliveryTask, _ order: Order, configuration: ServerConfiguration) {
        taskId = task.id.lowercased
        orderId = order.id.lowercased
        externalRef = order.externalRef
        status = task.status
        allowedNext = task.status.allowedNext
        podType = order.podType
        proofOfDelivery = ProofState(
            accepted: task.podAccepted, overridden: task.podOverride,
            otpAttemptsRemaining: max(0, DeliveryRules.maximumOTPAttempts - task.otpFailedAttempts),
            otpLocked: task.otpLocked)
        vendor = order.vendor
        let underWay = OrderAccess.riderSeesCustomer(task, order)
        let contact = CustomerForRider(
            name: order.customer.name, address: order.customer.address, location: order.customer.location,
            phoneMasked: order.customer.maskedPhone, phone: configuration.riderContactNumber)
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
        geofenceRadiusM = configuration.geofenceRadiusM
        acceptedAt = task.acceptedAt
        updatedAt = task.updatedAt
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
