import Foundation
import LogisticsCore

extension SQLLogisticsRepository: RatingRepository {
    public func rateDelivery(orderId: UUID, stars: Int, comment: String?, now: Date) async throws -> DeliveryRating {
        try await database.transaction { transaction in
            // The order's row lock makes two ratings sent at once wait for each other: the second sees the first.
            let order = try await lockedOrder(orderId, in: transaction)
            try DeliveryRating.checkRateable(order.status)
            if try await transaction.first(
                "SELECT 1 AS rated FROM delivery_ratings WHERE order_id = ?", [.uuid(orderId)])
                != nil
            {
                throw LogisticsError(.alreadyRated, "This order was rated already; a rating cannot be changed")
            }
            let rating = DeliveryRating(
                orderId: orderId, riderId: order.assignedRiderId, stars: stars, comment: comment, ratedAt: now)
            try await transaction.query(
                "INSERT INTO delivery_ratings (order_id, rider_id, stars, comment, rated_at) VALUES (?, ?, ?, ?, ?)",
                [.uuid(orderId), .uuid(rating.riderId), .int(stars), .text(comment), .date(now)])
            return rating
        }
    }

    public func rating(orderId: UUID) async throws -> DeliveryRating? {
        try await database.first("SELECT * FROM delivery_ratings WHERE order_id = ?", [.uuid(orderId)])
            .map(DeliveryRating.init(row:))
    }

    public func riderRatings(riderId: UUID, recent: Int) async throws -> RiderRatings {
        let totals = try await database.first(
            "SELECT COUNT(*) AS n, AVG(CAST(stars AS DOUBLE PRECISION)) AS average FROM delivery_ratings WHERE rider_id = ?",
            [.uuid(riderId)])
        let newest = try await database.query(
            "SELECT * FROM delivery_ratings WHERE rider_id = ? ORDER BY rated_at DESC, order_id LIMIT ?",
            [.uuid(riderId), .int(recent)]
        ).map(DeliveryRating.init(row:))
        let count = try totals?.int("n") ?? 0
        return RiderRatings(
            riderId: riderId, count: count, averageStars: count == 0 ? nil : totals?.optionalDouble("average"),
            recent: newest)
    }
}

extension DeliveryRating {
    init(row: SQLRow) throws {
        self.init(
            orderId: try row.uuid("order_id"), riderId: try row.optionalUUID("rider_id"), stars: try row.int("stars"),
            comment: row.optionalString("comment"), ratedAt: try row.date("rated_at"))
    }
}
