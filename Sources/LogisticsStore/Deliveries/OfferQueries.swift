import Foundation
import LogisticsCore

extension SQLLogisticsRepository: DeliveryRepository {
    public func makeOffers(orderId: UUID, to targets: OfferTargets, ttl: TimeInterval, by actor: Actor, now: Date)
        async throws -> [Offer]
    {
        try await database.transaction { transaction in
            let order = try await lockedOrder(orderId, in: transaction)
            if order.status == .cancelled { throw LogisticsError(.orderCancelled, "The order was cancelled") }
            if order.assignedRiderId != nil {
                throw LogisticsError(.orderAlreadyAssigned, "The order already has a rider")
            }
            guard order.status == .readyForPickup else {
                throw LogisticsError.invalidTransition(
                    from: order.status, "Offers can be made once the order is READY_FOR_PICKUP")
            }
            let riders = try await offerRecipients(targets, order: order, in: transaction)
            var offers: [Offer] = []
            for riderId in riders {
                try await transaction.query(
                    """
                    UPDATE offers SET status = CASE WHEN expires_at <= ? THEN 'EXPIRED' ELSE 'SUPERSEDED' END,
                        closed_at = CASE WHEN expires_at <= ? THEN expires_at ELSE ? END
                    WHERE order_id = ? AND rider_id = ? AND status = 'OPEN'
                    """, [.date(now), .date(now), .date(now), .uuid(orderId), .uuid(riderId)])
                let offer = Offer(
                    id: UUID(), orderId: orderId, riderId: riderId, status: .open, createdAt: now,
                    expiresAt: now.addingTimeInterval(ttl))
                try await transaction.query(
                    "INSERT INTO offers (id, order_id, rider_id, status, created_at, expires_at) VALUES (?, ?, ?, 'OPEN', ?, ?)",
                    [.uuid(offer.id), .uuid(orderId), .uuid(riderId), .date(now), .date(offer.expiresAt)])
                offers.append(offer)
            }
            try await EventLog(transaction: transaction).append(
                .init(
                    orderId: orderId, type: OrderEventType.offersMade, status: order.status.rawValue, occurredAt: now,
                    receivedAt: now, actor: actor,
                    details: ["riderIds": riders.map(\.lowercased).joined(separator: ","), "ttlSeconds": "\(Int(ttl))"]),
                notify: riders.map {
                    QueuedNotification.catalog(
                        NotificationKey.newOffer, to: $0, role: .rider,
                        arguments: ["vendor": order.vendor.name, "seconds": "\(Int(ttl))"])
                })
            return offers
        }
    }

    private func offerRecipients(_ targets: OfferTargets, order: Order, in transaction: any SQLExecutor) async throws
        -> [UUID]
    {
        switch targets {
        case .riders(let ids):
            var unique: [UUID] = []
            for (index, id) in ids.enumerated() where !unique.contains(id) {
                // A well-formed id of a rider who does not exist, or may not work now, is not a malformed request
                // (400): it is an unknown id (404) or a rider's state (409), as the contract's code table has it.
                guard let row = try await transaction.first("SELECT * FROM riders WHERE id = ?", [.uuid(id)]) else {
                    throw LogisticsError(.notFound, "riderIds[\(index)] names no rider known to the service")
                }
                if try Rider(row: row).suspended {
                    throw LogisticsError(.conflict, "riderIds[\(index)] names a suspended rider")
                }
                unique.append(id)
            }
            return unique
        case .nearest(let count, let roadTime):
            // Riders who declined this order are not asked again; riders with no fix yet come last.
            // Each rider's vehicle times them by road (a bicycle is slower than the motorcycle graph says).
            let rows = try await transaction.query(
                """
                SELECT r.id, r.last_lat, r.last_lon, p.vehicle FROM riders r LEFT JOIN people p ON p.id = r.id
                WHERE r.availability = 'ONLINE' AND r.suspended = 0 AND r.active_task_id IS NULL
                  AND r.id NOT IN (SELECT rider_id FROM offers WHERE order_id = ? AND status = 'DECLINED')
                """, [.uuid(order.id)])
            let store = order.vendor.location
            let vehicles = Dictionary(
                rows.compactMap { row in
                    (try? row.uuid("id")).map { ($0, row.optionalString("vehicle").flatMap(Vehicle.init)) }
                }, uniquingKeysWith: { first, _ in first })
            var ranked = rows.map { row -> (UUID?, GeoPoint?, Double) in
                let id = try? row.uuid("id")
                guard let lat = row.optionalDouble("last_lat"), let lon = row.optionalDouble("last_lon") else {
                    return (id, nil, .infinity)
                }
                let position = GeoPoint(lat: lat, lon: lon)
                return (id, position, position.distanceM(to: store))
            }
            .sorted { $0.2 < $1.2 }
            if let roadTime {
                // Road ETAs for the closest few in a straight line: a river or a one-way loop can reorder them,
                // and a rider the router cannot reach the store from sorts after those it can.
                let shortlist = min(ranked.count, max(count * 4, 12))
                let timed = ranked.prefix(shortlist).map { candidate -> (UUID?, GeoPoint?, Double) in
                    guard let position = candidate.1 else { return candidate }
                    let vehicle = candidate.0.flatMap { vehicles[$0] ?? nil }
                    return (candidate.0, position, roadTime.seconds(position, store, vehicle) ?? 1e9 + candidate.2)
                }
                ranked = timed.sorted { $0.2 < $1.2 } + ranked.dropFirst(shortlist)
            }
            let chosen = ranked.compactMap(\.0).prefix(count)
            guard !chosen.isEmpty else {
                throw LogisticsError(.noRiderAvailable, "No rider is online and free right now", retryAfterSeconds: 30)
            }
            return Array(chosen)
        }
    }

    public func openOffers(riderId: UUID, now: Date) async throws -> [(Offer, Order)] {
        let rows = try await database.query(
            """
            SELECT o.*, f.id AS offer_id, f.status AS offer_status, f.created_at AS offer_created_at,
                f.expires_at AS offer_expires_at, f.rider_id AS offer_rider_id, f.trip_plan AS offer_trip_plan
            FROM offers f JOIN orders o ON o.id = f.order_id
            WHERE f.rider_id = ? AND f.status = 'OPEN' AND f.expires_at > ? AND o.assigned_rider_id IS NULL
              AND o.status IN ('READY_FOR_PICKUP', 'PREPARING')
            ORDER BY f.expires_at
            """, [.uuid(riderId), .date(now)])
        return try rows.map { row in
            let offer = Offer(
                id: try row.uuid("offer_id"), orderId: try row.uuid("id"), riderId: try row.uuid("offer_rider_id"),
                status: .open, createdAt: try row.date("offer_created_at"), expiresAt: try row.date("offer_expires_at"),
                tripStops: row.optionalString("offer_trip_plan").map(TripStop.parse))
            return (offer, try Order(row: row))
        }
    }

    public func offers(orderId: UUID) async throws -> [(Offer, riderName: String?)] {
        try await database.query(
            """
            SELECT f.*, r.name AS rider_name FROM offers f LEFT JOIN riders r ON r.id = f.rider_id
            WHERE f.order_id = ? ORDER BY f.created_at, f.id
            """, [.uuid(orderId)]
        ).map { (try Offer(row: $0), $0.optionalString("rider_name")) }
    }

    public func declineOffer(offerId: UUID, riderId: UUID, now: Date) async throws -> Offer {
        try await database.transaction { transaction in
            _ = try await order(ofOffer: offerId, locked: true, in: transaction)
            let offer = try await offer(offerId, locked: true, in: transaction)
            guard offer.riderId == riderId else {
                throw LogisticsError(.forbidden, "This offer was made to another rider")
            }
            if offer.status == .declined { return offer }
            guard offer.isOpen(at: now) else { throw LogisticsError(.offerExpired, "This offer is no longer open") }
            let row = try await transaction.first(
                "UPDATE offers SET status = 'DECLINED', closed_at = ? WHERE id = ? RETURNING *",
                [.date(now), .uuid(offerId)])
            return try Offer(row: row!)
        }
    }

    /// Marks lapsed offers EXPIRED for the audit trail. Rows an acceptance holds are skipped and
    /// picked up by a later pass, so the sweeper never waits on (or deadlocks with) a rider.
    public func expireOffers(now: Date) async throws -> Int {
        let candidates =
            database.dialect == .postgres
            ? "SELECT id FROM offers WHERE status = 'OPEN' AND expires_at <= ? LIMIT 500 FOR UPDATE SKIP LOCKED"
            : "SELECT id FROM offers WHERE status = 'OPEN' AND expires_at <= ? LIMIT 500"
        return try await database.query(
            "UPDATE offers SET status = 'EXPIRED', closed_at = expires_at WHERE id IN (\(candidates)) RETURNING id",
            [.date(now)]
        ).count
    }

    /// The offer's order in one statement; `locked`, it is taken for this transaction (every writer takes the order
    /// row before its offers).
    func order(ofOffer offerId: UUID, locked: Bool, in transaction: any SQLExecutor) async throws -> Order {
        guard
            let row = try await transaction.first(
                "SELECT * FROM orders WHERE id = (SELECT order_id FROM offers WHERE id = ?)"
                    + (locked ? transaction.forUpdate : ""), [.uuid(offerId)])
        else { throw LogisticsError.notFound("offer") }
        return try Order(row: row)
    }

    func offer(_ id: UUID, locked: Bool, in transaction: any SQLExecutor) async throws -> Offer {
        guard
            let row = try await transaction.first(
                "SELECT * FROM offers WHERE id = ?" + (locked ? transaction.forUpdate : ""), [.uuid(id)])
        else { throw LogisticsError.notFound("offer") }
        return try Offer(row: row)
    }
}

extension Offer {
    init(row: SQLRow) throws {
        self.init(
            id: try row.uuid("id"), orderId: try row.uuid("order_id"), riderId: try row.uuid("rider_id"),
            status: OfferStatus(rawValue: try row.string("status")) ?? .expired, createdAt: try row.date("created_at"),
            expiresAt: try row.date("expires_at"), closedAt: row.optionalDate("closed_at"),
            tripStops: row.optionalString("trip_plan").map(TripStop.parse))
    }
}

extension TripStop {
    /// The `trip_plan` column: stop tokens separated by commas.
    static func parse(_ text: String) -> [TripStop] {
        text.split(separator: ",").compactMap { TripStop(token: String($0)) }
    }

    static func column(_ stops: [TripStop]?) -> SQLValue {
        stops.map { .text($0.map(\.token).joined(separator: ",")) } ?? .null
    }
}
