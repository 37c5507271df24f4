import Foundation
import LogisticsCore

extension SQLLogisticsRepository: DispatchRepository {
    public func ordersAwaitingDispatch(
        orderId: UUID?, vendors: Set<UUID>?, now: Date, lead: TimeInterval, limit: Int
    ) async throws -> [Order] {
        if let vendors, vendors.isEmpty { return [] }
        var filters = ""
        var binds: [SQLValue] = []
        if let orderId {
            filters += " AND o.id = ?"
            binds.append(.uuid(orderId))
        }
        if let vendors {
            filters += " AND o.vendor_id IN (\(Array(repeating: "?", count: vendors.count).joined(separator: ", ")))"
            binds += vendors.sorted { $0.uuidString < $1.uuidString }.map { .uuid($0) }
        }
        let rows = try await database.query(
            """
            SELECT o.* FROM orders o
            WHERE (o.status = 'READY_FOR_PICKUP'
                   OR (o.status = 'PREPARING' AND o.expected_ready_at IS NOT NULL AND o.expected_ready_at <= ?))
              AND o.assigned_rider_id IS NULL AND o.dispatch_escalated_at IS NULL
              \(filters)
              AND NOT EXISTS (SELECT 1 FROM offers f WHERE f.order_id = o.id AND f.status = 'OPEN' AND f.expires_at > ?)
            ORDER BY CASE WHEN o.status = 'READY_FOR_PICKUP' THEN 0 ELSE 1 END, o.updated_at LIMIT ?
            """, [.date(now.addingTimeInterval(lead))] + binds + [.date(now), .int(limit)])
        return try rows.map(Order.init(row:))
    }

    public func freeRiders(for orderId: UUID, now: Date) async throws -> [FreeRider] {
        let rows = try await database.query(
            """
            SELECT r.id, r.last_lat, r.last_lon, COALESCE(r.free_since, r.updated_at) AS waiting_since, p.vehicle
            FROM riders r LEFT JOIN people p ON p.id = r.id
            WHERE r.availability = 'ONLINE' AND r.suspended = 0 AND r.active_task_id IS NULL
              AND NOT EXISTS (SELECT 1 FROM offers f WHERE f.rider_id = r.id AND f.status = 'OPEN' AND f.expires_at > ?)
              AND NOT EXISTS (SELECT 1 FROM offers f WHERE f.rider_id = r.id AND f.order_id = ?)
            """, [.date(now), .uuid(orderId)])
        return try rows.map { row in
            var position: GeoPoint?
            if let lat = row.optionalDouble("last_lat"), let lon = row.optionalDouble("last_lon") {
                position = GeoPoint(lat: lat, lon: lon)
            }
            return FreeRider(
                riderId: try row.uuid("id"), position: position, freeSince: try row.date("waiting_since"),
                vehicle: row.optionalString("vehicle").flatMap(Vehicle.init))
        }
    }

    public func tripRiders(for orderId: UUID, maxOrders: Int, now: Date) async throws -> [TripRider] {
        let riders = try await database.query(
            """
            SELECT r.id, r.last_lat, r.last_lon, p.vehicle FROM riders r LEFT JOIN people p ON p.id = r.id
            WHERE r.availability = 'ON_TASK' AND r.suspended = 0 AND r.active_task_id IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM offers f WHERE f.rider_id = r.id AND f.status = 'OPEN' AND f.expires_at > ?)
              AND NOT EXISTS (SELECT 1 FROM offers f WHERE f.rider_id = r.id AND f.order_id = ?)
            """, [.date(now), .uuid(orderId)])
        guard !riders.isEmpty else { return [] }
        let ids = try riders.map { try $0.uuid("id") }
        let tasks = try await database.query(
            """
            SELECT * FROM tasks WHERE status NOT IN \(TaskStatus.finalSQLList)
              AND rider_id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))
            """, ids.map { .uuid($0) }
        ).map(DeliveryTask.init(row:))
        let legsByRider = Dictionary(grouping: try await legs(of: tasks, in: database), by: \.task.riderId)
        return try riders.compactMap { row in
            let riderId = try row.uuid("id")
            // A full trip has no room; the tasks read here say how full it is.
            guard let legs = legsByRider[riderId], !legs.isEmpty, legs.count < maxOrders,
                // A parcel on its way back has no customer stop to plan around: no new order joins that trip.
                !legs.contains(where: { $0.task.status == .returningToStore })
            else { return nil }
            var position: GeoPoint?
            if let lat = row.optionalDouble("last_lat"), let lon = row.optionalDouble("last_lon") {
                position = GeoPoint(lat: lat, lon: lon)
            }
            return TripRider(
                riderId: riderId, position: position, trip: RiderTrip(legs),
                vehicle: row.optionalString("vehicle").flatMap(Vehicle.init))
        }
    }

    public func automaticRounds(orderId: UUID) async throws -> Int {
        let row = try await database.first(
            "SELECT COUNT(*) AS rounds FROM offers WHERE order_id = ? AND automatic = 1", [.uuid(orderId)])
        return try row?.int("rounds") ?? 0
    }

    public func makeAutomaticOffer(
        orderId: UUID, riderId: UUID, ttl: TimeInterval, tripStops: [TripStop]?, details: [String: String], now: Date
    ) async throws -> Offer? {
        try await database.transaction { transaction in
            let order = try await lockedOrder(orderId, in: transaction)
            guard order.awaitsRider,
                try await transaction.first(
                    "SELECT 1 FROM orders WHERE id = ? AND dispatch_escalated_at IS NULL", [.uuid(orderId)]) != nil,
                try await transaction.first(
                    "SELECT 1 FROM offers WHERE order_id = ? AND status = 'OPEN' AND expires_at > ?",
                    [.uuid(orderId), .date(now)]) == nil
            else { return nil }
            // The rider's row is locked after the order's, as acceptance takes them, so a rider cannot be given
            // two orders' offers at once by two dispatchers.
            let riderState =
                tripStops == nil ? "availability = 'ONLINE' AND active_task_id IS NULL" : "availability = 'ON_TASK'"
            guard
                try await transaction.first(
                    """
                    SELECT id FROM riders WHERE id = ? AND \(riderState) AND suspended = 0\(transaction.forUpdate)
                    """, [.uuid(riderId)]) != nil,
                try await transaction.first(
                    "SELECT 1 FROM offers WHERE rider_id = ? AND status = 'OPEN' AND expires_at > ?",
                    [.uuid(riderId), .date(now)]) == nil
            else { return nil }
            let offer = Offer(
                id: UUID(), orderId: orderId, riderId: riderId, status: .open, createdAt: now,
                expiresAt: now.addingTimeInterval(ttl), tripStops: tripStops)
            // The trip may have moved on since it was planned (a task ended or joined): then the plan is stale.
            if tripStops != nil {
                do {
                    _ = try await tripRanks(for: offer, riderId: riderId, in: transaction)
                } catch let error as LogisticsError where error.code == .riderHasActiveTask {
                    return nil
                }
            }
            try await transaction.query(
                """
                INSERT INTO offers (id, order_id, rider_id, status, created_at, expires_at, automatic, trip_plan)
                VALUES (?, ?, ?, 'OPEN', ?, ?, 1, ?)
                """,
                [
                    .uuid(offer.id), .uuid(orderId), .uuid(riderId), .date(now), .date(offer.expiresAt),
                    TripStop.column(tripStops),
                ])
            var eventDetails = details
            eventDetails["riderIds"] = riderId.lowercased
            eventDetails["ttlSeconds"] = "\(Int(ttl))"
            eventDetails["automatic"] = "true"
            try await EventLog(transaction: transaction).append(
                .init(
                    orderId: orderId, type: OrderEventType.offersMade, status: order.status.rawValue, occurredAt: now,
                    receivedAt: now, actor: .automaticDispatch, details: eventDetails),
                notify: [
                    QueuedNotification.catalog(
                        NotificationKey.newOffer, to: riderId, role: .rider,
                        arguments: ["vendor": order.vendor.name, "seconds": "\(Int(ttl))"])
                ])
            return offer
        }
    }

    public func escalateDispatch(orderId: UUID, details: [String: String], now: Date) async throws -> Bool {
        try await database.transaction { transaction in
            let order = try await lockedOrder(orderId, in: transaction)
            guard order.awaitsRider,
                try await transaction.first(
                    "UPDATE orders SET dispatch_escalated_at = ? WHERE id = ? AND dispatch_escalated_at IS NULL RETURNING id",
                    [.date(now), .uuid(orderId)]) != nil
            else { return false }
            try await EventLog(transaction: transaction).append(
                .init(
                    orderId: orderId, type: OrderEventType.dispatchEscalated, status: order.status.rawValue,
                    occurredAt: now, receivedAt: now, actor: .automaticDispatch, details: details))
            return true
        }
    }
}
