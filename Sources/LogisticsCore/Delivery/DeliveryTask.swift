import Foundation

/// The delivery leg of an order, owned by the rider who won it.
public struct DeliveryTask: Sendable, Equatable {
    public var id: UUID
    public var orderId: UUID
    public var riderId: UUID
    public var offerId: UUID?
    public var status: TaskStatus
    public var acceptedAt: Date
    public var updatedAt: Date
    public var podAccepted: Bool
    public var podOverride: Bool
    public var otpFailedAttempts: Int
    public var failureApproved: Bool
    public var issueReportedAt: Date?
    /// Where the task's store and customer come in the rider's trip (batching); a lone task is 0 and 1.
    public var pickupRank: Int
    public var dropoffRank: Int

    public init(
        id: UUID, orderId: UUID, riderId: UUID, offerId: UUID?, status: TaskStatus, acceptedAt: Date, updatedAt: Date,
        podAccepted: Bool = false, podOverride: Bool = false, otpFailedAttempts: Int = 0, failureApproved: Bool = false,
        issueReportedAt: Date? = nil, pickupRank: Int = 0, dropoffRank: Int = 1
    ) {
        self.id = id
        self.orderId = orderId
        self.riderId = riderId
        self.offerId = offerId
        self.status = status
        self.acceptedAt = acceptedAt
        self.updatedAt = updatedAt
        self.podAccepted = podAccepted
        self.podOverride = podOverride
        self.otpFailedAttempts = otpFailedAttempts
        self.failureApproved = failureApproved
        self.issueReportedAt = issueReportedAt
        self.pickupRank = pickupRank
        self.dropoffRank = dropoffRank
    }

    public var otpLocked: Bool { otpFailedAttempts >= DeliveryRules.maximumOTPAttempts }

    /// The trip rank of the stop this task waits for: its store before pickup, its customer after.
    public var nextStopRank: Int? {
        // Going back to the store takes the place the customer had in the trip.
        if status == .returningToStore { return dropoffRank }
        return switch status.nextStop {
        case .store: pickupRank
        case .customer: dropoffRank
        case nil: nil
        }
    }

    /// Whether the task has been on a trip with others: batching ranks a trip's stops past every rank it used, so a
    /// lone task keeps 0 and 1.
    public var wasBatched: Bool { dropoffRank > 1 }

    /// The order a rider works through a trip's tasks in: the one whose next stop comes first, then the earlier.
    public static func comesFirst(_ a: DeliveryTask, _ b: DeliveryTask) -> Bool {
        (a.nextStopRank ?? .max, a.acceptedAt) < (b.nextStopRank ?? .max, b.acceptedAt)
    }
}

public struct Offer: Sendable, Equatable {
    public var id: UUID
    public var orderId: UUID
    public var riderId: UUID
    public var status: OfferStatus
    public var createdAt: Date
    public var expiresAt: Date
    public var closedAt: Date?
    /// For an offer that adds the order to the rider's trip (batching): the trip's remaining stops as planned,
    /// the new order's among them. Nil for an ordinary offer to a free rider.
    public var tripStops: [TripStop]?

    public init(
        id: UUID, orderId: UUID, riderId: UUID, status: OfferStatus, createdAt: Date, expiresAt: Date,
        closedAt: Date? = nil, tripStops: [TripStop]? = nil
    ) {
        self.id = id
        self.orderId = orderId
        self.riderId = riderId
        self.status = status
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.closedAt = closedAt
        self.tripStops = tripStops
    }

    public func isOpen(at now: Date) -> Bool { status == .open && now < expiresAt }

    public func secondsLeft(at now: Date) -> Int {
        max(0, Int((expiresAt.epochMillis - now.epochMillis + 999) / 1000))
    }
}
