import Foundation
import LogisticsCore
import LogisticsStore

/// An order as dispatchers, vendors and the API see it.
struct OrderRepresentation: Encodable {
    var orderId: String
    var externalRef: String?
    var status: OrderStatus
    /// The registered store the order is for, when it is one.
    var vendorId: String?
    var vendor: VendorStop
    var customer: CustomerRepresentation
    var podType: ProofOfDeliveryType
    var notes: String?
    var assignedRiderId: String?
    var taskId: String?
    var cancelReason: String?
    var expectedReadyAt: Date?
    var readyAt: Date?
    var createdAt: Date
    var updatedAt: Date
    /// The customer's rating, once given: on the order document for dispatchers and admins.
    var rating: RatingRepresentation?

    struct RatingRepresentation: Encodable {
        var stars: Int
        var comment: String?
        var ratedAt: Date
    }

    init(_ order: Order, rating: DeliveryRating? = nil) {
        orderId = order.id.lowercased
        externalRef = order.externalRef
        status = order.status
        vendorId = order.vendorId?.lowercased
        vendor = order.vendor
        customer = CustomerRepresentation(order.customer)
        podType = order.podType
        notes = order.notes
        assignedRiderId = order.assignedRiderId?.lowercased
        taskId = order.taskId?.lowercased
        cancelReason = order.cancelReason
        expectedReadyAt = order.expectedReadyAt
        readyAt = order.readyAt
        createdAt = order.createdAt
        updatedAt = order.updatedAt
        self.rating = rating.map { RatingRepresentation(stars: $0.stars, comment: $0.comment, ratedAt: $0.ratedAt) }
    }
}

struct CustomerRepresentation: Encodable {
    var id: String
    var name: String
    var phone: String
    var address: String
    var location: GeoPoint
    var locale: String?
    var notify: [CustomerChannel]?

    init(_ customer: CustomerContact) {
        id = customer.id.lowercased
        name = customer.name
        phone = customer.phone
        address = customer.address
        location = customer.location
        locale = customer.locale
        notify = customer.notify
    }
}

struct OrderPageRepresentation: Encodable {
    var orders: [OrderRepresentation]
    var nextCursor: String?
}

struct OrderEventRepresentation: Encodable {
    var eventId: String
    var orderId: String
    var taskId: String?
    var seq: Int
    var type: String
    var status: String?
    var occurredAt: Date
    var receivedAt: Date
    var location: GeoPoint?
    var actor: ActorRepresentation
    var geofenceDistanceM: Double?
    var geofenceOverride: Bool
    var details: [String: String]

    struct ActorRepresentation: Encodable {
        var id: String
        var role: Role
    }

    init(_ event: OrderEvent) {
        eventId = event.id.lowercased
        orderId = event.orderId.lowercased
        taskId = event.taskId?.lowercased
        seq = event.seq
        type = event.type
        status = event.status
        occurredAt = event.occurredAt
        receivedAt = event.receivedAt
        location = event.location
        actor = ActorRepresentation(id: event.actorId.lowercased, role: event.actorRole)
        geofenceDistanceM = event.geofenceDistanceM
        geofenceOverride = event.geofenceOverride
        details = event.details
    }
}

/// An event in the dispatcher's feed: the event and its order's reference, so the feed names orders as people do.
struct FeedEventRepresentation: Encodable {
    var event: OrderEventRepresentation
    var externalRef: String?

    func encode(to encoder: any Encoder) throws {
        try event.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(externalRef, forKey: .externalRef)
    }

    private enum Key: String, CodingKey { case externalRef }
}
