import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import Testing

@testable import TestSupport

@Suite("Idempotency-Key on POST", .timeLimit(.minutes(3)))
struct IdempotencyTests {
    @Test("the same key and body replay the first response; a different body is 422", arguments: StoreKind.available)
    func replayAndReuse(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            let body = Fixtures.order()
            let first = try await server.send(
                .post, "/api/v1/orders", token: dispatcher, json: body, headers: ["Idempotency-Key": "order-1"])
            #expect(first.status == 201)
            let again = try await server.send(
                .post, "/api/v1/orders", token: dispatcher, json: body, headers: ["Idempotency-Key": "order-1"])
            #expect(again.status == 201)
            #expect(again.body == first.body)
            #expect(again.headers[.location] == first.headers[.location])
            #expect(try await server.count("orders") == 1)

            var changed = body
            changed["notes"] = "Leave at the door"
            let reused = try await server.send(
                .post, "/api/v1/orders", token: dispatcher, json: changed, headers: ["Idempotency-Key": "order-1"])
            #expect(reused.status == 422)
            #expect(reused.code == "IDEMPOTENCY_KEY_REUSED")
            #expect(try await server.count("orders") == 1)

            // Keys belong to the caller: another dispatcher's identical key is a different request.
            let colleague = try await server.token(.dispatcher)
            let theirs = try await server.send(
                .post, "/api/v1/orders", token: colleague, json: body, headers: ["Idempotency-Key": "order-1"])
            #expect(theirs.status == 201)
            #expect(try await server.count("orders") == 2)

            // Refusals replay too, without running the request again.
            let orderId = try #require(first["orderId"] as? String)
            try await server.database.query("UPDATE orders SET status = 'DELIVERED' WHERE id = ?", [.text(orderId)])
            let cancel = try await server.send(
                .post, "/api/v1/orders/\(orderId)/cancel", token: dispatcher, json: [:],
                headers: ["Idempotency-Key": "c-1"])
            #expect(cancel.status == 409)
            let cancelAgain = try await server.send(
                .post, "/api/v1/orders/\(orderId)/cancel", token: dispatcher, json: [:],
                headers: ["Idempotency-Key": "c-1"])
            #expect(cancelAgain.status == 409)
            #expect(cancelAgain.body == cancel.body)
        }
    }

    @Test(
        "a request whose key is still being processed is 409 IDEMPOTENCY_REQUEST_IN_PROGRESS; a claim left by a process that died is taken over after 2 minutes",
        arguments: StoreKind.available)
    func inProgress(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcherId = UUID()
            let dispatcher = try await server.token(.dispatcher, dispatcherId)
            let body = try JSONSerialization.data(withJSONObject: Fixtures.order(), options: [.sortedKeys])
            var hasher = SHA256Hasher()
            let hash = hasher.hex(Array("POST /api/v1/orders\n".utf8) + Array(body))
            // As if a first request with this key were still running in this very process.
            let running: SQLValue =
                (server.database as? PostgresDatabase).map { .int($0.presence) }
                ?? (server.database as? SQLiteDatabase).map { .int($0.boot) } ?? .null
            try await server.database.query(
                """
                INSERT INTO idempotency_keys (principal, idempotency_key, request_hash, status, created_at, claimed_by)
                VALUES (?, ?, ?, 0, ?, ?)
                """,
                [
                    .text("dispatcher:\(dispatcherId.lowercased)"), .text("busy-key"), .text(hash),
                    .date(server.clock.now()), running,
                ])
            let reply = try await server.send(
                .post, "/api/v1/orders", token: dispatcher, raw: body, contentType: "application/json",
                headers: ["Idempotency-Key": "busy-key"])
            #expect(reply.status == 409)
            #expect(reply.code == "IDEMPOTENCY_REQUEST_IN_PROGRESS")
            #expect(reply.headers[.retryAfter] == "1")
            #expect(try await server.count("orders") == 0)

            // The request hangs for good: two minutes on, the retry runs once and is then replayed.
            server.clock.advance(by: 121)
            let retried = try await server.send(
                .post, "/api/v1/orders", token: dispatcher, raw: body, contentType: "application/json",
                headers: ["Idempotency-Key": "busy-key"])
            #expect(retried.status == 201)
            let replayed = try await server.send(
                .post, "/api/v1/orders", token: dispatcher, raw: body, contentType: "application/json",
                headers: ["Idempotency-Key": "busy-key"])
            #expect(replayed.status == 201)
            #expect(replayed.body == retried.body)
            #expect(try await server.count("orders") == 1)
        }
    }

    @Test(
        "on SQLite, a claim made before the process was killed (another boot, or none) is taken over at once"
    )
    func claimOfAnEarlierBoot() async throws {
        try await TestServer.run(.sqlite) { server in
            let dispatcherId = UUID()
            let dispatcher = try await server.token(.dispatcher, dispatcherId)
            let sqlite = try #require(server.database as? SQLiteDatabase)
            for (key, claimant) in [("killed-key", SQLValue.int(sqlite.boot == 7 ? 8 : 7)), ("old-key", .null)] {
                let body = try JSONSerialization.data(withJSONObject: Fixtures.order(), options: [.sortedKeys])
                var hasher = SHA256Hasher()
                let hash = hasher.hex(Array("POST /api/v1/orders\n".utf8) + Array(body))
                try await server.database.query(
                    """
                    INSERT INTO idempotency_keys (principal, idempotency_key, request_hash, status, created_at,
                        claimed_by)
                    VALUES (?, ?, ?, 0, ?, ?)
                    """,
                    [
                        .text("dispatcher:\(dispatcherId.lowercased)"), .text(key), .text(hash),
                        .date(server.clock.now()), claimant,
                    ])
                let retried = try await server.send(
                    .post, "/api/v1/orders", token: dispatcher, raw: body, contentType: "application/json",
                    headers: ["Idempotency-Key": key])
                #expect(retried.status == 201, "\(key): \(retried.text)")
                let replayed = try await server.send(
                    .post, "/api/v1/orders", token: dispatcher, raw: body, contentType: "application/json",
                    headers: ["Idempotency-Key": key])
                #expect(replayed.body == retried.body)
            }
            #expect(try await server.count("orders") == 2)
        }
    }

    @Test(
        "on PostgreSQL, a claim of an instance that is gone (killed: its presence lock went with its connections) is taken over at once; a live instance's claim is not"
    )
    func claimOfAGoneInstance() async throws {
        guard let url = StoreKind.postgresURL else {
            StoreKind.noteSkippedPostgres()
            return
        }
        try await TestServer.run(.postgres) { server in
            let dispatcherId = UUID()
            let dispatcher = try await server.token(.dispatcher, dispatcherId)
            let body = try JSONSerialization.data(withJSONObject: Fixtures.order(), options: [.sortedKeys])
            var hasher = SHA256Hasher()
            let hash = hasher.hex(Array("POST /api/v1/orders\n".utf8) + Array(body))
            // Another instance, running: it listens, so it holds its presence lock.
            let other = try PostgresDatabase(
                settings: .init(url: url, poolSize: 1), logger: Logger(label: "another-instance"))
            let (listening, ready) = AsyncStream.makeStream(of: Void.self)
            let listener = Task {
                try await other.listen(channel: "presence_test", onListening: { ready.yield() }) { _ in }
            }
            for await _ in listening { break }
            guard let postgres = server.database as? PostgresDatabase else {
                Issue.record("the server does not run on PostgreSQL")
                return
            }
            if try await !postgres.isPresent(other.presence) {
                Issue.record("the listening instance holds no presence lock: \(try await Self.presenceLocks(postgres))")
            }
            try await server.database.query(
                """
                INSERT INTO idempotency_keys (principal, idempotency_key, request_hash, status, created_at, claimed_by)
                VALUES (?, ?, ?, 0, ?, ?)
                """,
                [
                    .text("dispatcher:\(dispatcherId.lowercased)"), .text("claimed-elsewhere"), .text(hash),
                    .date(server.clock.now()), .int(other.presence),
                ])
            let busy = try await server.send(
                .post, "/api/v1/orders", token: dispatcher, raw: body, contentType: "application/json",
                headers: ["Idempotency-Key": "claimed-elsewhere"])
            #expect(busy.status == 409)
            #expect(busy.code == "IDEMPOTENCY_REQUEST_IN_PROGRESS")
            if busy.status != 409 {
                Issue.record("claimant \(other.presence); locks then: \(try await Self.presenceLocks(postgres))")
            }

            // The other instance dies: its connections close and PostgreSQL releases the lock.
            listener.cancel()
            await other.close()
            _ = try? await listener.value
            let deadline = ContinuousClock.now + .seconds(10)
            while try await postgres.isPresent(other.presence), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let retried = try await server.send(
                .post, "/api/v1/orders", token: dispatcher, raw: body, contentType: "application/json",
                headers: ["Idempotency-Key": "claimed-elsewhere"])
            #expect(retried.status == 201)
            let replayed = try await server.send(
                .post, "/api/v1/orders", token: dispatcher, raw: body, contentType: "application/json",
                headers: ["Idempotency-Key": "claimed-elsewhere"])
            #expect(replayed.body == retried.body)
            #expect(try await server.count("orders") == 1)
            // The server's own claims name it, and it is present while it listens.
            if try await !postgres.isPresent(postgres.presence) {
                let locks = try await Self.presenceLocks(postgres)
                Issue.record("the server \(postgres.presence) is not present: \(locks)")
            }
        }
    }

    /// The presence locks PostgreSQL holds, and the sessions holding them, for a failure to say what it saw.
    private static func presenceLocks(_ database: PostgresDatabase) async throws -> String {
        let rows = try await database.query(
            """
            SELECT l.objid::text AS presence, l.pid::text AS pid, l.granted::text AS granted, a.state AS state,
                left(a.query, 60) AS query
            FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.classid::bigint = ?
            """, [.int(Int64(PostgresDatabase.presenceLockClass))])
        let columns = ["presence", "pid", "granted", "state", "query"]
        return rows.map { row in columns.map { row.optionalString($0) ?? "-" }.joined(separator: " ") }
            .joined(separator: "; ")
    }

    @Test("concurrent requests with one key create one order", arguments: StoreKind.available)
    func concurrentSameKey(kind: StoreKind) async throws {
        try await TestServer.run(kind, mode: .live) { server in
            let dispatcher = try await server.token(.dispatcher)
            let body = try JSONSerialization.data(withJSONObject: Fixtures.order())
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await ConcurrentClient.send(
                            port: server.port, .post, "/api/v1/orders", token: dispatcher, jsonBody: body,
                            headers: ["Idempotency-Key": "same"]
                        ).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 201 || $0 == 409 })
            #expect(statuses.contains(201))
            #expect(try await server.count("orders") == 1)
        }
    }
}
