import Foundation
import LogisticsCore

extension SQLLogisticsRepository {
    public func addPerson(_ person: Person, createdBy: UUID, invitation: QueuedTextMessage?, now: Date) async throws {
        do {
            try await database.transaction { transaction in
                if let phone = person.phone,
                    try await transaction.first("SELECT id FROM people WHERE phone = ?", [.text(phone)]) != nil
                {
                    throw Self.phoneInUse
                }
                try await transaction.query(
                    """
                    INSERT INTO people (id, role, name, phone, vendor_id, vehicle, suspended_at, created_by, created_at,
                        updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .uuid(person.id), .text(person.role.rawValue), .text(person.name), .text(person.phone),
                        .uuid(person.vendorId), .text(person.vehicle?.rawValue), .date(person.suspended ? now : nil),
                        .uuid(createdBy), .date(now), .date(now),
                    ])
                if person.role == .rider {
                    try await transaction.query(
                        """
                        INSERT INTO riders (id, name, availability, created_at, updated_at) VALUES (?, ?, 'OFFLINE', ?, ?)
                        ON CONFLICT (id) DO UPDATE SET name = excluded.name
                        """, [.uuid(person.id), .text(person.name), .date(now), .date(now)])
                }
                if let invitation { try await Self.queue(invitation, now: now, in: transaction) }
            }
        } catch StoreError.uniqueViolation {
            // Two creations of one phone at once: the unique index decides, and the loser hears why.
            throw Self.phoneInUse
        }
    }

    static var phoneInUse: LogisticsError {
        LogisticsError(.phoneInUse, "Someone already has this phone number", extras: ["field": .string("phone")])
    }

    public func person(id: UUID) async throws -> Person? {
        try await database.first("\(Self.personSelect) WHERE p.id = ?", [.uuid(id)]).map(Person.init(row:))
    }

    public func person(phone: String) async throws -> Person? {
        try await database.first("\(Self.personSelect) WHERE p.phone = ?", [.text(phone)]).map(Person.init(row:))
    }

    /// A rider's suspension lives on the rider record (the API and the sockets read it there); everyone else's on
    /// the person.
    static let personSelect = """
        SELECT p.*, CASE WHEN p.role = 'rider' THEN COALESCE(r.suspended, 0)
            ELSE (CASE WHEN p.suspended_at IS NULL THEN 0 ELSE 1 END) END AS is_suspended
        FROM people p LEFT JOIN riders r ON r.id = p.id AND p.role = 'rider'
        """

    public func people(_ filter: PeopleFilter, limit: Int, cursor: String?) async throws -> PeoplePage {
        var conditions = ["p.role IN (\(placeholders(filter.roles.count)))"]
        var binds: [SQLValue] = filter.roles.map { .text($0.rawValue) }
        if let vendor = filter.vendorId {
            conditions.append("p.vendor_id = ?")
            binds.append(.uuid(vendor))
        }
        if let query = filter.query?.lowercased(), !query.isEmpty {
            conditions.append("(LOWER(p.name) LIKE ? ESCAPE '\\' OR p.phone LIKE ? ESCAPE '\\')")
            let pattern = "%" + Self.likeEscaped(query) + "%"
            binds += [.text(pattern), .text(pattern)]
        }
        if let cursor {
            let (name, id) = try Self.nameCursor(cursor)
            conditions.append("(p.name > ? OR (p.name = ? AND p.id > ?))")
            binds += [.text(name), .text(name), .text(id)]
        }
        let rows = try await database.query(
            "\(Self.personSelect) WHERE \(conditions.joined(separator: " AND ")) ORDER BY p.name, p.id LIMIT ?",
            binds + [.int(limit + 1)])
        let people = try rows.prefix(limit).map(Person.init(row:))
        let next =
            rows.count > limit
            ? people.last.map { Self.hex($0.name) + "|" + $0.id.lowercased } : nil
        return PeoplePage(people: people, nextCursor: next)
    }

    /// Lists by name then id: a cursor is the last row's name and id, read back here.
    static func nameCursor(_ cursor: String) throws -> (name: String, id: String) {
        let parts = cursor.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let name = bytes(hex: parts[0]), UUID(uuidString: parts[1]) != nil else {
            throw LogisticsError.validation(field: "cursor", "is not a cursor this list gave out")
        }
        return (String(decoding: name, as: UTF8.self), parts[1].lowercased())
    }

    /// A name in a cursor: its UTF-8 bytes in lowercase hex (anything the query string carries unchanged).
    static func hex(_ text: String) -> String { text.utf8.map { String(format: "%02x", $0) }.joined() }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }

    static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }

    public func changePerson(id: UUID, roles: [Role], _ changes: PersonChanges, now: Date) async throws -> Person {
        do {
            return try await database.transaction { transaction in
                guard
                    let row = try await transaction.first(
                        "SELECT * FROM people WHERE id = ? AND role IN (\(placeholders(roles.count)))\(transaction.forUpdate)",
                        [.uuid(id)] + roles.map { .text($0.rawValue) })
                else { throw LogisticsError.notFound("person") }
                let role = Role(rawValue: try row.string("role")) ?? .rider
                if let phone = changes.phone,
                    try await transaction.first(
                        "SELECT id FROM people WHERE phone = ? AND id <> ?", [.text(phone), .uuid(id)]) != nil
                {
                    throw Self.phoneInUse
                }
                try await transaction.query(
                    """
                    UPDATE people SET name = COALESCE(?, name), phone = COALESCE(?, phone),
                        vehicle = COALESCE(?, vehicle), updated_at = ? WHERE id = ?
                    """,
                    [
                        .text(changes.name), .text(changes.phone), .text(changes.vehicle?.rawValue), .date(now),
                        .uuid(id),
                    ])
                if let suspended = changes.suspended {
                    if role == .rider {
                        try await transaction.query(
                            "UPDATE riders SET suspended = ?, updated_at = ? WHERE id = ?",
                            [.bool(suspended), .date(now), .uuid(id)])
                    } else {
                        try await transaction.query(
                            "UPDATE people SET suspended_at = ? WHERE id = ?",
                            [.date(suspended ? now : nil), .uuid(id)])
                    }
                }
                if let name = changes.name, role == .rider {
                    try await transaction.query("UPDATE riders SET name = ? WHERE id = ?", [.text(name), .uuid(id)])
                }
                guard let changed = try await transaction.first("\(Self.personSelect) WHERE p.id = ?", [.uuid(id)])
                else { throw StoreError.corrupt("person vanished") }
                return try Person(row: changed)
            }
        } catch StoreError.uniqueViolation {
            throw Self.phoneInUse
        }
    }

    public func addVendor(_ vendor: Vendor, createdBy: UUID) async throws {
        try await database.query(
            "INSERT INTO vendors (id, name, address, lat, lon, phone, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .uuid(vendor.id), .text(vendor.name), .text(vendor.address), .double(vendor.location.lat),
                .double(vendor.location.lon), .text(vendor.phone), .date(vendor.createdAt),
            ])
    }

    public func changeVendor(id: UUID, name: String?, address: String?, location: GeoPoint?, phone: String?)
        async throws -> Vendor
    {
        guard
            let row = try await database.first(
                """
                UPDATE vendors SET name = COALESCE(?, name), address = COALESCE(?, address), lat = COALESCE(?, lat),
                    lon = COALESCE(?, lon), phone = COALESCE(?, phone)
                WHERE id = ? RETURNING *
                """,
                [
                    .text(name), .text(address), .double(location?.lat), .double(location?.lon), .text(phone),
                    .uuid(id),
                ]), let vendor = Vendor(row: row)
        else { throw LogisticsError.notFound("store") }
        return vendor
    }

    public func vendor(id: UUID) async throws -> Vendor? {
        try await database.first("SELECT * FROM vendors WHERE id = ?", [.uuid(id)]).flatMap(Vendor.init(row:))
    }

    public func vendors(query: String?, limit: Int, cursor: String?) async throws -> (
        vendors: [Vendor], nextCursor: String?
    ) {
        var conditions = ["lat IS NOT NULL"]
        var binds: [SQLValue] = []
        if let query = query?.lowercased(), !query.isEmpty {
            conditions.append("(LOWER(name) LIKE ? ESCAPE '\\' OR LOWER(COALESCE(address, '')) LIKE ? ESCAPE '\\')")
            let pattern = "%" + Self.likeEscaped(query) + "%"
            binds += [.text(pattern), .text(pattern)]
        }
        if let cursor {
            let (name, id) = try Self.nameCursor(cursor)
            conditions.append("(name > ? OR (name = ? AND id > ?))")
            binds += [.text(name), .text(name), .text(id)]
        }
        let rows = try await database.query(
            "SELECT * FROM vendors WHERE \(conditions.joined(separator: " AND ")) ORDER BY name, id LIMIT ?",
            binds + [.int(limit + 1)])
        let vendors = rows.prefix(limit).compactMap(Vendor.init(row:))
        let next =
            rows.count > limit
            ? vendors.last.map { Self.hex($0.name) + "|" + $0.id.lowercased } : nil
        return (vendors, next)
    }

    /// An outbox row for the SMS provider: no order (the nil id), the phone in the payload.
    static func queue(_ message: QueuedTextMessage, now: Date, in transaction: any SQLExecutor) async throws {
        let payload = String(
            decoding: try JSONEncoder.sorted.encode(
                TextPayload(to: message.to, kind: message.secret ? TextPayload.secret : TextPayload.plain)),
            as: UTF8.self)
        try await transaction.query(
            """
            INSERT INTO outbox (event_id, order_id, topic, recipient_id, body, payload, created_at)
            VALUES (?, ?, 'sms', ?, ?, ?, ?)
            """,
            [
                .uuid(UUID()), .uuid(OutboxMessage.noOrder), .uuid(message.recipientId), .text(message.body),
                .text(payload), .date(now),
            ])
    }
}

extension OutboxMessage {
    /// The order id of messages that belong to no order (sign-in codes, invitations).
    public static let noOrder = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// The phone a text message goes to.
    public var textRecipient: String? {
        guard topic == "sms" else { return nil }
        return TextPayload(json: payload)?.to
    }
}

/// An SMS outbox row's payload: the phone, and whether the body must be erased once sent (a sign-in code).
struct TextPayload: Codable {
    static let plain = "text"
    static let secret = "secret"

    var to: String
    var kind: String

    init(to: String, kind: String) {
        self.to = to
        self.kind = kind
    }

    init?(json: String) {
        guard let payload = try? JSONDecoder().decode(Self.self, from: Data(json.utf8)) else { return nil }
        self = payload
    }

    static func isSecret(_ json: String) -> Bool { TextPayload(json: json)?.kind == secret }
}

extension Person {
    init(row: SQLRow) throws {
        guard let role = Role(rawValue: try row.string("role")) else {
            throw StoreError.corrupt("person \(row.optionalString("id") ?? "?")")
        }
        self.init(
            id: try row.uuid("id"), role: role, name: try row.string("name"), phone: row.optionalString("phone"),
            vendorId: try row.optionalUUID("vendor_id"), vehicle: row.optionalString("vehicle").flatMap(Vehicle.init),
            suspended: row.bool("is_suspended"), createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"))
    }
}

extension Vendor {
    init?(row: SQLRow) {
        guard let id = try? row.uuid("id"), let name = row.optionalString("name"), let lat = row.optionalDouble("lat"),
            let lon = row.optionalDouble("lon"), let created = try? row.date("created_at")
        else { return nil }
        self.init(
            id: id, name: name, address: row.optionalString("address") ?? "", location: GeoPoint(lat: lat, lon: lon),
            phone: row.optionalString("phone"), createdAt: created)
    }
}
