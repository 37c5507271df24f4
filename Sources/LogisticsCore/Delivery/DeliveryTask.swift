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

    public init(
        id: UUID, orderId: UUID, riderId: UUID, offerId: UUID?, status: TaskStatus, acceptedAt: Date, updatedAt: Date,
        podAccepted: Bool = false, podOverride: Bool = false, otpFailedAttempts: Int = 0, failureApproved: Bool = false,
        issueReportedAt: Date? = nil
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
    }

    public var otpLocked: Bool { otpFailedAttempts >= DeliveryRules.maximumOTPAttempts }
}

public struct Offer: Sendable, Equatable {
    public var id: UUID
    public var orderId: UUID
    public var riderId: UUID
    public var status: OfferStatus
    public var createdAt: Date
    public var expiresAt: Date
    public var closedAt: Date?

    public init(
        id: UUID, orderId: UUID, riderId: UUID, status: OfferStatus, createdAt: Date, expiresAt: Date,
        closedAt: Date? = nil
    ) {
        self.id = id
        self.orderId = orderId
        self.riderId = riderId
        self.status = status
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.closedAt = closedAt
    }

    public func isOpen(at now: Date) -> Bool { status == .open && now < expiresAt }

    public func secondsLeft(at now: Date) -> Int {
        max(0, Int((expiresAt.epochMillis - now.epochMillis + 999) / 1000))
    }
}
