import Foundation
import LogisticsCore
import LogisticsStore

/// The customer's own view of their order: no other customer's data, and the delivery code.
struct CustomerOrderRepresentation: Encodable {
    var orderId: String
    var status: OrderStatus
    var vendor: VendorStop
    var destination: Destination
    var podType: ProofOfDeliveryType
    var riderFirstName: String?
    var deliveryOtp: String?
    /// Seconds to the door by the router, while the order is on its way and a map is loaded.
    var etaSeconds: Int?
    var tracking: Tracking
    var createdAt: Date
    var updatedAt: Date

    struct Destination: Encodable {
        var address: String
        var location: GeoPoint
    }

    struct Tracking: Encodable {
        var available: Bool
        var lastKnown: GeoPoint?
        var lastKnownAt: Date?
        var stale: Bool
    }
}
