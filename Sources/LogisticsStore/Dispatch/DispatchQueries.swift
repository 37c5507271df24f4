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
            SELECT r.id, r.last_lat, r.last_lon, COALESCE(r.free_since, r.updated_at) AS waiting_since FROM riders r
            WHERE r.availability = 'ONLINE' AND r.suspended = 0 AND r.active_task_id IS NULL
              AND NOT EXISTS (SELECT 1 FROM offers f WHERE f.rider_id = r.id AND f.status = 'OPEN' AND f.expires_at > ?)
              AND NOT EXISTS (SELECT 1 FROM offers f WHERE f.rider_id = r.id AND f.order_id = ?)
            """, [.date(now), .uuid(orderId)])
        return try rows.map { row in
            var position: GeoPoint?
            if let lat = row.optionalDouble("last_lat"), let lon = row.optionalDouble("last_lon") {
                position = GeoPoint(lat: lat, lon: lon)
            }
            return FreeRider(riderId: try row.uuid("id"), position: position, freeSince: try row.date("waiting_since"))
        }
    }

    public func automaticRounds(orderId: UUID) async throws -> Int {
        let row = try await database.first(
            "SELECT COUNT(*) AS rounds FROM offers WHERE order_id = ? AND automatic = 1", [.uuid(orderId)])
        return try row?.int("rounds") ?? 0
    }

    public func makeAutomaticOffer(
        orderId: UUID, riderId: UUID, ttl: TimeInterval, details: [String: String], now: Date
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
            guard
                try await transaction.first(
                    """
                    SELECT id FROM riders WHERE id = ? AND availability = 'ONLINE' AND suspended = 0
                      AND active_task_id IS NULL\(transaction.forUpdate)
                    """, [.uuid(riderId)]) != nil,
                try await transaction.first(
                    "SELECT 1 FROM offers WHERE rider_id = ? AND status = 'OPEN' AND expires_at > ?",
                    [.uuid(riderId), .date(now)]) == nil
            else { return nil }
            let offer = Offer(
                id: UUID(), orderId: orderId, riderId: riderId, status: .open, createdAt: now,
                expiresAt: now.addingTimeInterval(ttl))
            try await transaction.query(
                """
                INSERT INTO offers (id, order_id, rider_id, status, created_at, expires_at, automatic)
                VALUES (?, ?, ?, 'OPEN', ?, ?, 1)
                """, [.uuid(offer.id), .uuid(orderId), .uuid(riderId), .date(now), .date(offer.expiresAt)])
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
