import Foundation
import LogisticsCore
import LogisticsStore
import Testing

@testable import TestSupport

@Suite("Housekeeping", .timeLimit(.minutes(3)))
struct RetentionTests {
    @Test(
        "old idempotency keys, finished notifications and fanned-out outbox rows are pruned; the rest stays",
        arguments: StoreKind.available)
    func pruning(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            for index in 0..<3 {
                let created = try await server.send(
                    .post, "/api/v1/orders", token: dispatcher, json: Fixtures.order(),
                    headers: ["Idempotency-Key": "order-\(index)"])
                #expect(created.status == 201)
            }
            for _ in 0..<100 where try await server.count("outbox", "sent_at IS NULL") > 0 {
                try await Task.sleep(for: .milliseconds(50))
            }
            for _ in 0..<100 where try await server.count("notification_deliveries", "finished_at IS NULL") > 0 {
                try await Task.sleep(for: .milliseconds(50))
            }
            // Each order wrote its event and the customer's "order received" message (sent by the log's SMS).
            #expect(try await server.count("outbox") == 6)
            let outbox = try await server.database.query(
                "SELECT id, event_id, order_id FROM outbox WHERE topic = 'event' ORDER BY id")
            #expect(outbox.count == 3)
            let now = server.clock.now()
            // Notifications of the first two events: one sent 8 days ago, one dead for 10 days.
            for (row, status) in zip(outbox.prefix(2), ["SENT", "DEAD"]) {
                try await server.database.query(
                    """
                    INSERT INTO notification_deliveries (outbox_id, event_id, order_id, channel, destination_id,
                        target, ordering_key, status, next_attempt_at, budget_from, created_at, finished_at)
                    VALUES (?, ?, ?, 'webhook', 'w1', 'https://example.com/hook', 'k', ?, ?, ?, ?, ?)
                    """,
                    [
                        .int(try row.int("id")), .text(try row.string("event_id")), .text(try row.string("order_id")),
                        .text(status), .date(now), .date(now), .date(now), .date(now),
                    ])
            }
            #expect(try await server.repository.prune(RetentionPolicy(), now: now, batch: 2) == PrunedRows())

            // A day and a minute on: the keys have gone, nothing else.
            var later = now.addingTimeInterval(24 * 3600 + 60)
            let keys = try await server.repository.prune(RetentionPolicy(), now: later, batch: 2)
            #expect(keys == PrunedRows(idempotencyKeys: 3, notifications: 0, outbox: 0))

            // Eight days on: the sent notification goes, then its event and the event no notification needed, and the
            // three customers' texts with their messages; the dead letter and its event stay for an admin to
            // redeliver.
            later = now.addingTimeInterval(8 * 24 * 3600)
            let week = try await server.repository.prune(RetentionPolicy(), now: later, batch: 2)
            #expect(week == PrunedRows(idempotencyKeys: 0, notifications: 1 + 3, outbox: 2 + 3))
            #expect(try await server.count("notification_deliveries", "status = 'DEAD'") == 1)
            #expect(try await server.count("outbox") == 1)

            // Thirty-one days on the dead letter goes too, and with it the last event.
            later = now.addingTimeInterval(31 * 24 * 3600)
            let month = try await server.repository.prune(RetentionPolicy(), now: later, batch: 2)
            #expect(month == PrunedRows(idempotencyKeys: 0, notifications: 1, outbox: 1))
            // The business record is never pruned.
            #expect(try await server.count("orders") == 3)
            #expect(try await server.count("order_events") == 3)
        }
    }
}
