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
    /// FRESH, STALE (no fix for `positionStaleAfterS`) or NONE (no fix yet: offered by hand, without road
    /// distances).
    var position: RiderPositionFreshness
    var currentOrders: [CurrentOrder]
    var deliveriesToday: Int

    init(_ fleetRider: FleetRider, workload: RiderWorkload, now: Date) {
        let rider = fleetRider.rider
        riderId = rider.id.lowercased
        name = rider.name
        availability = rider.availability
        suspended = rider.suspended
        activeTaskId = rider.activeTaskId?.lowercased
        lastLocation = fleetRider.lastSeen.map {
            LastLocation(lat: $0.position.lat, lon: $0.position.lon, recordedAt: $0.at)
        }
        position = RiderPositionFreshness.of(lastFixAt: fleetRider.lastSeen?.at, now: now)
        currentOrders = workload.currentOrders.map {
            CurrentOrder(orderId: $0.orderId.lowercased, externalRef: $0.externalRef, status: $0.status)
        }
        deliveriesToday = workload.deliveriesToday
    }
}

/// A rider's ratings for dispatchers: `averageStars` (absent before the first rating) over `count` ratings, and the
/// newest ones with the order each was for.
struct RiderRatingsRepresentation: Encodable {
    struct Rating: Encodable {
        var orderId: String
        var stars: Int
        var comment: String?
        var ratedAt: Date
    }

    var riderId: String
    var count: Int
    var averageStars: Double?
    var ratings: [Rating]

    init(_ summary: RiderRatings) {
        riderId = summary.riderId.lowercased
        count = summary.count
        // Two decimals: 4.333… reads as 4.33 on a dispatcher's screen and in a spreadsheet alike.
        averageStars = summary.averageStars.map { ($0 * 100).rounded() / 100 }
        ratings = summary.recent.map {
            Rating(orderId: $0.orderId.lowercased, stars: $0.stars, comment: $0.comment, ratedAt: $0.ratedAt)
        }
    }
}
