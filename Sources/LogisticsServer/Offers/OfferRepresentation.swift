import Foundation
import LogisticsCore
import RoadRouting

struct OfferRepresentation: Encodable {
    var offerId: String
    var riderId: String
    var orderId: String
    /// The order's reference (as the store and the dispatcher say it), so a rider with two offers from one store
    /// can tell them apart.
    var externalRef: String?
    var status: OfferStatus
    var expiresAt: Date
    var secondsLeft: Int?
    var pickup: VendorStop?
    var dropoff: Dropoff?
    /// Road distances (open offers in the rider's list only).
    var distances: Distances?
    /// When the store expects the goods ready, for an order offered while still being prepared.
    var expectedReadyAt: Date?
    /// For an offer that adds the order to the rider's current trip (batching): where its stops fall among the
    /// stops left, counted from 1.
    var trip: TripPlacement?

    struct TripPlacement: Encodable {
        var stopCount: Int
        var pickupSequence: Int
        var dropoffSequence: Int
    }

    struct Distances: Encodable {
        /// From the rider's last known position to the store.
        var toStoreM: Double?
        var storeToCustomerM: Double?
    }

    struct Dropoff: Encodable {
        var address: String
        var location: GeoPoint
    }

    init(_ offer: Offer, order: Order? = nil, now: Date? = nil) {
        offerId = offer.id.lowercased
        riderId = offer.riderId.lowercased
        orderId = offer.orderId.lowercased
        externalRef = order?.externalRef
        status = offer.status
        expiresAt = offer.expiresAt
        secondsLeft = now.map { offer.secondsLeft(at: $0) }
        pickup = order?.vendor
        dropoff = order.map { Dropoff(address: $0.customer.address, location: $0.customer.location) }
        expectedReadyAt = order.flatMap { $0.status == .preparing ? $0.expectedReadyAt : nil }
        if let stops = offer.tripStops,
            let pickup = stops.firstIndex(of: TripStop(orderId: offer.orderId, kind: .store)),
            let dropoff = stops.firstIndex(of: TripStop(orderId: offer.orderId, kind: .customer))
        {
            trip = TripPlacement(stopCount: stops.count, pickupSequence: pickup + 1, dropoffSequence: dropoff + 1)
        }
    }
}

/// One offer of an order as the dispatcher follows it: who, and whether they took it, turned it down or let it lapse.
struct OrderOfferRepresentation: Encodable {
    var offerId: String
    var riderId: String
    var riderName: String?
    var status: OfferStatus
    var createdAt: Date
    var expiresAt: Date
    var closedAt: Date?

    init(_ offer: Offer, riderName: String?, now: Date) {
        offerId = offer.id.lowercased
        riderId = offer.riderId.lowercased
        self.riderName = riderName
        status = offer.status == .open && offer.expiresAt <= now ? .expired : offer.status
        createdAt = offer.createdAt
        expiresAt = offer.expiresAt
        closedAt = offer.closedAt ?? (status == .expired ? offer.expiresAt : nil)
    }
}
