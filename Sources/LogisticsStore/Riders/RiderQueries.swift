import Foundation
import LogisticsCore

extension SQLLogisticsRepository {
    public func provisionRider(_ actor: Actor, now: Date) async throws -> Rider {
        if let existing = try await rider(id: actor.id) { return existing }
        try await database.query(
            """
            INSERT INTO riders (id, name, availability, created_at, updated_at) VALUES (?, ?, 'OFFLINE', ?, ?)
            ON CONFLICT (id) DO NOTHING
            """, [.uuid(actor.id), .text(actor.name), .date(now), .date(now)])
        // A rider met through a token (an identity provider, `logistics token`) is one of the company's people too,
        // without a phone until an admin adds one.
        try await database.query(
            """
            INSERT INTO people (id, role, name, created_at, updated_at) VALUES (?, 'rider', ?, ?, ?)
            ON CONFLICT (id) DO NOTHING
            """,
            [.uuid(actor.id), .text(actor.name ?? "Rider \(actor.id.lowercased.prefix(8))"), .date(now), .date(now)])
        guard let rider = try await rider(id: actor.id) else { throw StoreError.corrupt("rider vanished") }
        return rider
    }

    public func provisionCustomer(_ actor: Actor, now: Date) async throws {
        let existing = try await database.first("SELECT id FROM customers WHERE id = ?", [.uuid(actor.id)])
        if existing != nil { return }
        try await database.query(
            "INSERT INTO customers (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
            [.uuid(actor.id), .text(actor.name), .date(now)])
    }

    public func rider(id: UUID) async throws -> Rider? {
        try await database.first("SELECT * FROM riders WHERE id = ?", [.uuid(id)]).map(Rider.init(row:))
    }

    public func setRiderSuspended(id: UUID, suspended: Bool, now: Date) async throws -> Rider {
        let rows = try await database.query(
            "UPDATE riders SET suspended = ?, updated_at = ? WHERE id = ? RETURNING *",
            [.bool(suspended), .date(now), .uuid(id)])
        guard let row = rows.first else { throw LogisticsError.notFound("rider") }
        return try Rider(row: row)
    }

    public func setAvailability(riderId: UUID, to availability: RiderAvailability, now: Date) async throws -> Rider {
        guard availability != .onTask else {
            throw LogisticsError.validation(field: "status", "must be ONLINE or OFFLINE")
        }
        return try await database.transaction { transaction in
            guard
                let row = try await transaction.first(
                    "SELECT * FROM riders WHERE id = ?\(transaction.forUpdate)", [.uuid(riderId)])
            else { throw LogisticsError.notFound("rider") }
            let rider = try Rider(row: row)
            if rider.availability == .onTask {
                throw LogisticsError(
                    .riderHasActiveTask, "Availability cannot change while a delivery is in progress",
                    extras: ["activeTaskId": .string(rider.activeTaskId?.lowercased ?? "")])
            }
            // Coming online starts the wait that automatic dispatch rewards; staying online keeps it.
            let freeSince: Date? =
                availability == .online ? (rider.availability == .online ? nil : now) : nil
            let updated = try await transaction.first(
                "UPDATE riders SET availability = ?, updated_at = ?, free_since = COALESCE(?, free_since) WHERE id = ? RETURNING *",
                [.text(availability.rawValue), .date(now), .date(freeSince), .uuid(riderId)])
            return try Rider(row: updated!)
        }
    }
}

extension SQLLogisticsRepository {
    public func fleet(availability: RiderAvailability?, limit: Int) async throws -> [FleetRider] {
        let filter = availability == nil ? "" : "WHERE availability = ?"
        let rows = try await database.query(
            """
            SELECT * FROM riders \(filter)
            ORDER BY CASE WHEN last_fix_at IS NULL THEN 1 ELSE 0 END, last_fix_at DESC, id LIMIT ?
            """, (availability.map { [SQLValue.text($0.rawValue)] } ?? []) + [.int(limit)])
        return try rows.map { row in FleetRider(rider: try Rider(row: row), lastSeen: row.riderLastPosition()) }
    }
}

extension SQLRow {
    /// A rider row's newest usable position and when it was recorded; nil before the first fix.
    func riderLastPosition() -> (position: GeoPoint, at: Date)? {
        guard let lat = optionalDouble("last_lat"), let lon = optionalDouble("last_lon"),
            let at = optionalDate("last_fix_at")
        else { return nil }
        return (GeoPoint(lat: lat, lon: lon), at)
    }
}

extension Rider {
    init(row: SQLRow) throws {
        self.init(
            id: try row.uuid("id"),
            name: row.optionalString("name"),
            availability: RiderAvailability(rawValue: try row.string("availability")) ?? .offline,
            suspended: row.bool("suspended"),
            activeTaskId: try row.optionalUUID("active_task_id"),
            createdAt: try row.date("created_at"))
    }
}
