import Foundation
import LogisticsCore

/// A tracking link as stored: which order it opens, and whether it was revoked.
public struct StoredTrackingLink: Sendable, Equatable {
    public var id: UUID
    public var orderId: UUID
    public var createdAt: Date
    public var revokedAt: Date?
}

extension SQLLogisticsRepository {
    public func createTrackingLink(id: UUID, orderId: UUID, by actor: Actor, now: Date) async throws {
        try await database.query(
            "INSERT INTO tracking_links (id, order_id, created_by, created_at) VALUES (?, ?, ?, ?)",
            [.uuid(id), .uuid(orderId), .text("\(actor.role.rawValue):\(actor.id.lowercased)"), .date(now)])
    }

    /// The link the customer's texts carry: the server's own for the order, made with the first text, so every
    /// text of an order links to the same page; a revoked one is replaced.
    public func messageLink(orderId: UUID, now: Date) async throws -> UUID {
        let creator = Self.messageLinkCreator
        if let row = try await database.first(
            """
            SELECT id FROM tracking_links WHERE order_id = ? AND created_by = ? AND revoked_at IS NULL
            ORDER BY created_at, id LIMIT 1
            """, [.uuid(orderId), .text(creator)])
        {
            return try row.uuid("id")
        }
        let id = UUID()
        try await database.query(
            "INSERT INTO tracking_links (id, order_id, created_by, created_at) VALUES (?, ?, ?, ?)",
            [.uuid(id), .uuid(orderId), .text(creator), .date(now)])
        return id
    }

    static let messageLinkCreator = "server:customer-messages"

    public func trackingLink(id: UUID) async throws -> StoredTrackingLink? {
        guard let row = try await database.first("SELECT * FROM tracking_links WHERE id = ?", [.uuid(id)]) else {
            return nil
        }
        return StoredTrackingLink(
            id: try row.uuid("id"), orderId: try row.uuid("order_id"), createdAt: try row.date("created_at"),
            revokedAt: row.optionalDate("revoked_at"))
    }

    /// Revokes one link of the order; false when the order has no such link. Revoking twice is not an error.
    public func revokeTrackingLink(id: UUID, orderId: UUID, now: Date) async throws -> Bool {
        let rows = try await database.query(
            """
            UPDATE tracking_links SET revoked_at = COALESCE(revoked_at, ?)
            WHERE id = ? AND order_id = ? RETURNING id
            """, [.date(now), .uuid(id), .uuid(orderId)])
        return !rows.isEmpty
    }

    /// Which of these links have been revoked (the watch on open tracking sockets asks every half second).
    public func revokedTrackingLinks(among ids: Set<UUID>) async throws -> Set<UUID> {
        try await matching(ids, "SELECT id FROM tracking_links WHERE revoked_at IS NOT NULL AND id IN")
    }

    /// Which of these riders are suspended now.
    public func suspendedRiders(among ids: Set<UUID>) async throws -> Set<UUID> {
        try await matching(ids, "SELECT id FROM riders WHERE suspended <> 0 AND id IN")
    }

    private func matching(_ ids: Set<UUID>, _ query: String) async throws -> Set<UUID> {
        var found: Set<UUID> = []
        let all = Array(ids)
        for start in stride(from: 0, to: all.count, by: 500) {
            let chunk = all[start..<min(start + 500, all.count)]
            for row in try await database.query("\(query) (\(placeholders(chunk.count)))", chunk.map { .uuid($0) }) {
                found.insert(try row.uuid("id"))
            }
        }
        return found
    }
}
