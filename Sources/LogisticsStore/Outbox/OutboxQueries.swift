import Foundation
import LogisticsCore

extension SQLLogisticsRepository {
    public func pendingOutbox(limit: Int) async throws -> [OutboxMessage] {
        try await database.query("SELECT * FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT ?", [.int(limit)])
            .map(OutboxMessage.init(row:))
    }

    public func outbox(orderId: UUID) async throws -> [OutboxMessage] {
        try await database.query("SELECT * FROM outbox WHERE order_id = ? ORDER BY id", [.uuid(orderId)])
            .map(OutboxMessage.init(row:))
    }
}

extension OutboxMessage {
    init(row: SQLRow) throws {
        self.init(
            id: try row.int("id"), eventId: try row.uuid("event_id"), orderId: try row.uuid("order_id"),
            topic: try row.string("topic"), recipientId: try row.optionalUUID("recipient_id"),
            recipientRole: row.optionalString("recipient_role").flatMap(Role.init(rawValue:)),
            title: row.optionalString("title"), body: row.optionalString("body"),
            payload: try row.string("payload"), createdAt: try row.date("created_at"),
            sentAt: row.optionalDate("sent_at"), textKey: row.optionalString("text_key"))
    }
}
