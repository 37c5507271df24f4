import Foundation

/// The customer's stars (and words) for a finished delivery, given once from the tracking link (CUS-028).
public struct DeliveryRating: Sendable, Equatable {
    public static let stars = 1...5
    /// Enough for a sentence or two about the rider; a longer text is refused, not cut, so nothing is lost unsaid.
    public static let maximumCommentLength = 1000

    public var orderId: UUID
    /// The rider who delivered: the rating counts towards their average.
    public var riderId: UUID?
    public var stars: Int
    public var comment: String?
    public var ratedAt: Date

    public init(orderId: UUID, riderId: UUID?, stars: Int, comment: String?, ratedAt: Date) {
        self.orderId = orderId
        self.riderId = riderId
        self.stars = stars
        self.comment = comment
        self.ratedAt = ratedAt
    }

    /// What is wrong with a rating as the customer sent it; empty when it can be stored.
    public static func validationErrors(stars: Int, comment: String?) -> [FieldError] {
        var errors: [FieldError] = []
        if !Self.stars.contains(stars) {
            errors.append(FieldError(field: "stars", message: "must be a whole number from 1 to 5"))
        }
        if let comment, comment.count > maximumCommentLength {
            errors.append(FieldError(field: "comment", message: "must be at most \(maximumCommentLength) characters"))
        }
        return errors
    }

    /// A comment of blanks says nothing: stored as none, so dispatchers are not shown an empty quote.
    public static func cleanComment(_ comment: String?) -> String? {
        guard let trimmed = comment?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else {
            return nil
        }
        return trimmed
    }

    /// Only a delivered order can be rated: before, there is nothing to judge; a cancelled or failed one was not the
    /// rider's delivery to rate.
    public static func checkRateable(_ status: OrderStatus) throws {
        guard status == .delivered else {
            throw LogisticsError(
                .notDelivered, "Only a delivered order can be rated; this one is \(status.rawValue)",
                extras: ["currentStatus": .string(status.rawValue)])
        }
    }
}

/// A rider's ratings as a dispatcher sees them: how many, their average, and the newest few.
public struct RiderRatings: Sendable, Equatable {
    public var riderId: UUID
    public var count: Int
    /// nil until the rider has a rating.
    public var averageStars: Double?
    public var recent: [DeliveryRating]

    public init(riderId: UUID, count: Int, averageStars: Double?, recent: [DeliveryRating]) {
        self.riderId = riderId
        self.count = count
        self.averageStars = averageStars
        self.recent = recent
    }
}
