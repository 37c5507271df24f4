import Foundation
import LogisticsCore

/// Customers' ratings of delivered orders, and what dispatchers read of them per order and per rider.
public protocol RatingRepository: Sendable {
    /// Stores the order's one rating: 409 NOT_DELIVERED before delivery, 409 ALREADY_RATED for a second; either way
    /// nothing is written.
    func rateDelivery(orderId: UUID, stars: Int, comment: String?, now: Date) async throws -> DeliveryRating
    func rating(orderId: UUID) async throws -> DeliveryRating?
    /// The rider's count and average over every rating, and the newest `recent` of them.
    func riderRatings(riderId: UUID, recent: Int) async throws -> RiderRatings
}
