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

/// A rider on the dispatcher's map: the account and where they were last seen.
struct FleetRiderRepresentation: Encodable {
    struct LastLocation: Encodable {
        var lat: Double
        var lon: Double
        var recordedAt: Date
    }

    var riderId: String
    var name: String?
    var availability: RiderAvailability
    var suspended: Bool
    var activeTaskId: String?
    var lastLocation: LastLocation?

    init(_ fleetRider: FleetRider) {
        let rider = fleetRider.rider
        riderId = rider.id.lowercased
        name = rider.name
        availability = rider.availability
        suspended = rider.suspended
        activeTaskId = rider.activeTaskId?.lowercased
        lastLocation = fleetRider.lastSeen.map {
            LastLocation(lat: $0.position.lat, lon: $0.position.lon, recordedAt: $0.at)
        }
    }
}
