import Foundation
import LogisticsCore
import LogisticsStore

struct RiderRepresentation: Encodable {
    var riderId: String
    var name: String?
    var availability: RiderAvailability
    var suspended: Bool
    var activeTaskId: String?

    init(_ rider: Rider) {
        riderId = rider.id.lowercased
        name = rider.name
        availability = rider.availability
        suspended = rider.suspended
        activeTaskId = rider.activeTaskId?.lowercased
    }
}

/// A rider on the dispatcher's map: the account, where they were last seen, what they carry and did today.
struct FleetRiderRepresentation: Encodable {
    struct LastLocation: Encodable {
        var lat: Double
        var lon: Double
        var recordedAt: Date
    }

    /// An order the rider is on, named as dispatchers name it.
    struct CurrentOrder: Encodable {
        var orderId: String
        var externalRef: String?
        var status: OrderStatus
    }

    var riderId: String
    var name: String?
    var availability: RiderAvailability
    var suspended: Bool
    var activeTaskId: String?
    var lastLocation: LastLocation?
    var currentOrders: [CurrentOrder]
    var deliveriesToday: Int

    init(_ fleetRider: FleetRider, workload: RiderWorkload) {
        let rider = fleetRider.rider
        riderId = rider.id.lowercased
        name = rider.name
        availability = rider.availability
        suspended = rider.suspended
        activeTaskId = rider.activeTaskId?.lowercased
        lastLocation = fleetRider.lastSeen.map {
            LastLocation(lat: $0.position.lat, lon: $0.position.lon, recordedAt: $0.at)
        }
        currentOrders = workload.currentOrders.map {
            CurrentOrder(orderId: $0.orderId.lowercased, externalRef: $0.externalRef, status: $0.status)
        }
        deliveriesToday = workload.deliveriesToday
    }
}
