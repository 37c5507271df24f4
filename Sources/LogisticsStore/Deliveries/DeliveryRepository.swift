import Foundation
import LogisticsCore

/// How an order is offered: to named riders, or to the nearest free ones.
public enum OfferTargets: Sendable {
    case riders([UUID])
    /// The free online riders quickest to reach the store: by road when `roadTime` can tell, else in a
    /// straight line.
    case nearest(count: Int, roadTime: RoadTravelTime? = nil)
}

/// Travel time in seconds by road between two positions for a rider of a vehicle (nil: unknown), or nil when there
/// is no route or no map.
public struct RoadTravelTime: Sendable {
    public let seconds: @Sendable (GeoPoint, GeoPoint, Vehicle?) -> Double?

    public init(_ seconds: @escaping @Sendable (GeoPoint, GeoPoint, Vehicle?) -> Double?) { self.seconds = seconds }
}

/// A stored proof of delivery.
public struct ProofOfDelivery: Sendable, Equatable {
    public var id: UUID
    public var taskId: UUID
    public var orderId: UUID
    public var type: String
    public var sha256: String?
    public var contentType: String?
    public var byteSize: Int?
    public var capturedAt: Date
    public var location: GeoPoint
    public var createdBy: UUID
    public var createdAt: Date

    public init(
        id: UUID, taskId: UUID, orderId: UUID, type: String, sha256: String?, contentType: String?, byteSize: Int?,
        capturedAt: Date, location: GeoPoint, createdBy: UUID, createdAt: Date
    ) {
        self.id = id
        self.taskId = taskId
        self.orderId = orderId
        self.type = type
        self.sha256 = sha256
        self.contentType = contentType
        self.byteSize = byteSize
        self.capturedAt = capturedAt
        self.location = location
        self.createdBy = createdBy
        self.createdAt = createdAt
    }
}

/// A delivery issue a rider reported.
public struct DeliveryIssue: Sendable, Equatable {
    public var id: UUID
    public var taskId: UUID?
    public var type: DeliveryIssueType
    public var note: String?
    public var location: GeoPoint?
    public var occurredAt: Date
    /// Whether the customer has a phone registered for push notifications, so the notice reaches them.
    public var customerReachable = false
}

/// Offers, acceptance and the delivery itself.
/// A stored photo, and whether it proved the delivery or awaits a dispatcher's override.
public struct RecordedPhoto: Sendable {
    public var proof: ProofOfDelivery
    public var awaitingOverride: Bool
}

public protocol DeliveryRepository: Sendable {
    func makeOffers(orderId: UUID, to targets: OfferTargets, ttl: TimeInterval, by actor: Actor, now: Date)
        async throws -> [Offer]
    func openOffers(riderId: UUID, now: Date) async throws -> [(Offer, Order)]
    /// Every offer made for the order, oldest first, with the rider's name.
    func offers(orderId: UUID) async throws -> [(Offer, riderName: String?)]
    func declineOffer(offerId: UUID, riderId: UUID, now: Date) async throws -> Offer
    func expireOffers(now: Date) async throws -> Int

    /// Assigns the order to the rider atomically; exactly one rider ever wins an order.
    func acceptOffer(offerId: UUID, by rider: Actor, now: Date) async throws -> (DeliveryTask, Order)
    func task(id: UUID) async throws -> DeliveryTask?
    func activeTask(riderId: UUID) async throws -> (DeliveryTask, Order)?
    /// The rider's unfinished tasks as one trip (several with batching).
    func activeTrip(riderId: UUID) async throws -> RiderTrip
    func changeStatus(
        taskId: UUID, eventId: UUID, change: DeliveryRules.StatusChange, by rider: Actor, now: Date,
        settings: DeliveryRules.Settings
    ) async throws -> (DeliveryTask, Order)

    /// Records a photo proof; `storeFile` writes the photo, under the task's lock once the proof has been accepted,
    /// so a refused upload leaves no file behind. The photo's distance from the door is recorded with it. After the
    /// customer's code was locked the photo is kept as evidence only: the answer says the task awaits an override.
    func recordPhotoProof(
        _ proof: ProofOfDelivery, by rider: Actor, now: Date, geofenceRadiusM: Double,
        storeFile: @escaping @Sendable () async throws -> Void
    ) async throws -> RecordedPhoto
    func attemptOTP(
        taskId: UUID, capturedAt: Date, location: GeoPoint, by rider: Actor, now: Date,
        verify: @escaping @Sendable (Order) -> Bool
    ) async throws -> OTPAttemptOutcome
    func proof(id: UUID) async throws -> ProofOfDelivery?
    /// The newest proof stored for the task (the one its customer is shown after delivery), nil when none was.
    func latestProof(taskId: UUID) async throws -> ProofOfDelivery?
    func photoProofCount(taskId: UUID) async throws -> Int

    /// The issues riders reported on the order, oldest first, with their notes (kept out of the append-only event log
    /// so anonymisation can blank them).
    func issues(orderId: UUID) async throws -> [DeliveryIssue]
    func reportIssue(
        taskId: UUID, type: DeliveryIssueType, note: String?, location: GeoPoint?, occurredAt: Date, by rider: Actor,
        now: Date
    ) async throws -> DeliveryIssue
    func overrideProof(orderId: UUID, reason: String, by actor: Actor, now: Date) async throws -> DeliveryTask
    /// Takes the order from its rider before pickup: the task ends CANCELLED with the reason, the rider is told, and
    /// the order is READY_FOR_PICKUP again, to be offered anew.
    func reassign(orderId: UUID, reason: String, kind: ReassignReason?, by actor: Actor, now: Date) async throws
        -> Order
    /// Sends a picked-up parcel back: the task becomes RETURNING_TO_STORE (the rider's next stop is the store), the
    /// rider and the customer are told why, and the rider's RETURNED_TO_STORE ends the order as RETURNED.
    /// `kind` is what the customer is told (fixed words); `reason`, the dispatcher's own, is logged and told the rider.
    func returnToStore(orderId: UUID, reason: String, kind: ReturnReason, by actor: Actor, now: Date) async throws
        -> (DeliveryTask, Order)
    func approveFailure(orderId: UUID, reason: String?, by actor: Actor, now: Date) async throws -> DeliveryTask
}
