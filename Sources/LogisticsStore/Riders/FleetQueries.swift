import Foundation
import LogisticsCore

/// An order a rider is working on, as the dispatcher's fleet list names it.
public struct RiderCurrentOrder: Sendable, Equatable {
    public var orderId: UUID
    public var externalRef: String?
    public var status: OrderStatus
}

/// What a rider has on hand and has done today: the dispatcher's fleet list beside each name.
public struct RiderWorkload: Sendable, Equatable {
    /// The orders of the rider's unfinished tasks, the first accepted first (several when a trip batches them).
    public var currentOrders: [RiderCurrentOrder] = []
    public var deliveriesToday = 0

    public init(currentOrders: [RiderCurrentOrder] = [], deliveriesToday: Int = 0) {
        self.currentOrders = currentOrders
        self.deliveriesToday = deliveriesToday
    }
}

extension SQLLogisticsRepository {
    public func fleetWorkloads(deliveredSince dayStart: Date) async throws -> [UUID: RiderWorkload] {
        var workloads: [UUID: RiderWorkload] = [:]
        // Every unfinished task at once: there are at most as many as riders at work, and the predicate is the
        // partial index's own, so the lookup never walks the finished tasks the business record keeps forever.
        let unfinished = try await database.query(
            """
            SELECT tasks.rider_id, orders.id AS order_id, orders.external_ref, orders.status FROM tasks
            JOIN orders ON orders.id = tasks.order_id
            WHERE tasks.status NOT IN \(TaskStatus.finalSQLList)
            ORDER BY tasks.accepted_at, tasks.id
            """, [])
        for row in unfinished {
            guard let status = OrderStatus(rawValue: try row.string("status")) else { continue }
            workloads[try row.uuid("rider_id"), default: RiderWorkload()].currentOrders.append(
                RiderCurrentOrder(
                    orderId: try row.uuid("order_id"), externalRef: row.optionalString("external_ref"),
                    status: status))
        }
        // Deliveries are counted from the event log, whose index on received_at reads only today's events; the
        // rider who marked DELIVERED is the event's actor.
        let delivered = try await database.query(
            """
            SELECT actor_id, COUNT(*) AS delivered FROM order_events
            WHERE received_at >= ? AND type = ? AND status = ? AND actor_role = ?
            GROUP BY actor_id
            """,
            [
                .date(dayStart), .text(OrderEventType.deliveryStatusUpdated), .text(TaskStatus.delivered.rawValue),
                .text(Role.rider.rawValue),
            ])
        for row in delivered {
            workloads[try row.uuid("actor_id"), default: RiderWorkload()].deliveriesToday = try row.int("delivered")
        }
        return workloads
    }

    public func riderTrail(riderId: UUID, since: Date, limit: Int) async throws -> [LocationFix] {
        // The newest `limit` fixes, returned oldest first: a trail cut short loses its far end, not the last minutes.
        let rows = try await database.query(
            """
            SELECT lat, lon, accuracy_m, speed_mps, heading_deg, recorded_at FROM rider_locations
            WHERE rider_id = ? AND recorded_at >= ? ORDER BY recorded_at DESC LIMIT ?
            """, [.uuid(riderId), .date(since), .int(limit)])
        return try rows.reversed().compactMap { row in
            guard let lat = row.optionalDouble("lat"), let lon = row.optionalDouble("lon") else { return nil }
            return LocationFix(
                lat: lat, lon: lon, accuracyM: row.optionalDouble("accuracy_m"),
                speedMps: row.optionalDouble("speed_mps"), headingDeg: row.optionalDouble("heading_deg"),
                recordedAt: try row.date("recorded_at"))
        }
    }
}
