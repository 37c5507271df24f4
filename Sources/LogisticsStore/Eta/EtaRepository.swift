import Foundation
import LogisticsCore

/// One ETA the customer was shown: when, from where the rider was, and how long the rest of the ride was said to
/// take; with the actual arrival once the rider reached the door.
public struct EtaPrediction: Sendable, Equatable {
    public var orderId: UUID
    public var predictedAt: Date
    public var remainingSeconds: Double
    public var remainingMetres: Double
    public var arrivedAt: Date?

    public init(
        orderId: UUID, predictedAt: Date, remainingSeconds: Double, remainingMetres: Double, arrivedAt: Date? = nil
    ) {
        self.orderId = orderId
        self.predictedAt = predictedAt
        self.remainingSeconds = remainingSeconds
        self.remainingMetres = remainingMetres
        self.arrivedAt = arrivedAt
    }

    /// Seconds the prediction was off by, once the arrival is known (positive: the rider was late).
    public var errorSeconds: Double? {
        arrivedAt.map { $0.timeIntervalSince(predictedAt) - remainingSeconds }
    }
}

/// Where the ETAs promised on the way to the customer are kept next to the actual arrival.
public protocol EtaRepository: Sendable {
    /// The orders each of these riders has picked up and not yet brought to the door, with where they go; a rider
    /// with none is left out.
    func ordersInTransit(riderIds: [UUID]) async throws -> [UUID: [(orderId: UUID, destination: GeoPoint)]]
    /// Keeps these predictions; one already kept for the same order and moment is left as it was.
    func recordEtaPredictions(_ predictions: [EtaPrediction]) async throws
    /// Puts the arrival next to the order's predictions and returns them; a second call for the same order returns
    /// nothing, so each prediction is scored once.
    func settleEtaPredictions(orderId: UUID, arrivedAt: Date) async throws -> [EtaPrediction]
    /// Scored predictions made at or after `since`, oldest first: what the ETA accuracy bench reads.
    func settledEtaPredictions(since: Date) async throws -> [EtaPrediction]
}

extension SQLLogisticsRepository: EtaRepository {
    public func ordersInTransit(riderIds: [UUID]) async throws -> [UUID: [(orderId: UUID, destination: GeoPoint)]] {
        guard !riderIds.isEmpty else { return [:] }
        var orders: [UUID: [(orderId: UUID, destination: GeoPoint)]] = [:]
        let columns = "o.id, o.customer_lat, o.customer_lon FROM"
        // PostgreSQL looks each rider up in the index of unfinished tasks, as the group commit does (`OFFSET 0`
        // keeps the planner from turning the lookups into a scan of every task); SQLite takes a list of ids.
        let chunks: [(String, [SQLValue])] =
            database.dialect == .postgres
            ? [
                (
                    """
                    SELECT r.id AS rider_id, \(columns) unnest(CAST(? AS TEXT[])) AS r (id)
                    CROSS JOIN LATERAL (
                        SELECT t.order_id FROM tasks t WHERE t.rider_id = r.id AND t.status = 'PICKED_UP' OFFSET 0) AS t
                    JOIN orders o ON o.id = t.order_id
                    """,
                    [.column(SQLColumn(.text, riderIds.map { .uuid($0) }))]
                )
            ]
            : stride(from: 0, to: riderIds.count, by: 1000).map { first in
                let chunk = riderIds[first..<min(riderIds.count, first + 1000)]
                return (
                    """
                    SELECT t.rider_id, \(columns) tasks t JOIN orders o ON o.id = t.order_id
                    WHERE t.rider_id IN (\(placeholders(chunk.count))) AND t.status = 'PICKED_UP'
                    """,
                    chunk.map { .uuid($0) }
                )
            }
        for (sql, binds) in chunks {
            for row in try await database.hotQuery(sql, binds) {
                orders[try row.uuid("rider_id"), default: []].append(
                    (
                        try row.uuid("id"),
                        GeoPoint(
                            lat: row.optionalDouble("customer_lat") ?? 0, lon: row.optionalDouble("customer_lon") ?? 0)
                    ))
            }
        }
        return orders
    }

    public func recordEtaPredictions(_ predictions: [EtaPrediction]) async throws {
        guard !predictions.isEmpty else { return }
        let values = Array(repeating: "(?, ?, ?, ?)", count: predictions.count).joined(separator: ", ")
        try await database.query(
            """
            INSERT INTO eta_predictions (order_id, predicted_at, remaining_s, remaining_m) VALUES \(values)
            ON CONFLICT (order_id, predicted_at) DO NOTHING
            """,
            predictions.flatMap { prediction -> [SQLValue] in
                [
                    .uuid(prediction.orderId), .date(prediction.predictedAt), .double(prediction.remainingSeconds),
                    .double(prediction.remainingMetres),
                ]
            })
    }

    public func settleEtaPredictions(orderId: UUID, arrivedAt: Date) async throws -> [EtaPrediction] {
        try await database.transaction { transaction in
            let rows = try await transaction.query(
                """
                SELECT predicted_at, remaining_s, remaining_m FROM eta_predictions
                WHERE order_id = ? AND arrived_at IS NULL ORDER BY predicted_at
                """ + (transaction.dialect == .postgres ? " FOR UPDATE" : ""), [.uuid(orderId)])
            guard !rows.isEmpty else { return [] }
            try await transaction.query(
                "UPDATE eta_predictions SET arrived_at = ? WHERE order_id = ? AND arrived_at IS NULL",
                [.date(arrivedAt), .uuid(orderId)])
            return try rows.map { row in
                EtaPrediction(
                    orderId: orderId, predictedAt: try row.date("predicted_at"),
                    remainingSeconds: row.optionalDouble("remaining_s") ?? 0,
                    remainingMetres: row.optionalDouble("remaining_m") ?? 0, arrivedAt: arrivedAt)
            }
        }
    }

    public func settledEtaPredictions(since: Date) async throws -> [EtaPrediction] {
        try await database.query(
            """
            SELECT order_id, predicted_at, remaining_s, remaining_m, arrived_at FROM eta_predictions
            WHERE arrived_at IS NOT NULL AND predicted_at >= ? ORDER BY predicted_at
            """, [.date(since)]
        ).map { row in
            EtaPrediction(
                orderId: try row.uuid("order_id"), predictedAt: try row.date("predicted_at"),
                remainingSeconds: row.optionalDouble("remaining_s") ?? 0,
                remainingMetres: row.optionalDouble("remaining_m") ?? 0, arrivedAt: row.optionalDate("arrived_at"))
        }
    }
}
