import Foundation
import Logging
import LogisticsStore
import Testing

@testable import TestSupport

/// The group commit's statements and the ETA lookup run prepared on PostgreSQL (`hotQuery`): parsed and planned
/// once per connection, with the same answers and errors as an unnamed statement.
@Suite(
    "Hot statements prepared once per connection", .timeLimit(.minutes(2)),
    .enabled(if: StoreKind.postgresURL != nil, "needs LOGISTICS_TEST_DATABASE_URL"))
struct HotStatementTests {
    @Test("a hot statement answers as an unnamed one and is prepared on the connection, once")
    func prepared() async throws {
        try await Self.withDatabase { database in
            let sql = "SELECT CAST(? AS BIGINT) + 1 AS next, CAST(? AS TEXT) AS word, 'hot-statement-test' AS tag"
            for number in 0..<8 {
                let binds: [SQLValue] = [.int(Int64(number)), .text("w\(number)")]
                let hot = try await database.hotQuery(sql, binds)
                #expect(hot.map(\.values) == (try await database.query(sql, binds)).map(\.values))
                #expect(hot.first?.values["next"] == .int(Int64(number + 1)))
            }
            // One connection in the pool, so this is the connection the statement was prepared on.
            let prepared = try await database.query(
                "SELECT name FROM pg_prepared_statements WHERE statement LIKE '%hot-statement-test%'")
            #expect(prepared.count == 1)
            #expect((try prepared.first?.string("name"))?.hasPrefix("logistics_hot_") == true)
        }
    }

    @Test("a NULL bind, or an error, leaves the statement unnamed on that connection; errors are the usual ones")
    func fallback() async throws {
        try await Self.withDatabase { database in
            try await database.query("CREATE TABLE hot_keys (key TEXT PRIMARY KEY, note TEXT)")
            let insert = "INSERT INTO hot_keys (key, note) VALUES (?, ?)"
            try await database.hotQuery(insert, [.text("a"), .null])
            try await database.hotQuery(insert, [.text("b"), .text("first")])
            await #expect(throws: StoreError.self) { try await database.hotQuery(insert, [.text("b"), .text("x")]) }
            try await database.hotQuery(insert, [.text("c"), .text("after the error")])
            let keys = try await database.query("SELECT key FROM hot_keys ORDER BY key").map { try $0.string("key") }
            #expect(keys == ["a", "b", "c"])

            // A statement PostgreSQL refuses to prepare is refused every time, with its reason, and the connection
            // goes on answering.
            for _ in 0..<2 {
                do {
                    try await database.hotQuery("SELECT no_such_column FROM hot_keys WHERE key = ?", [.text("a")])
                    Issue.record("a statement naming a missing column ran")
                } catch StoreError.rejected(let reason) {
                    #expect(reason.contains("no_such_column"))
                }
            }
            #expect(
                try await database.hotQuery("SELECT count(*) AS n FROM hot_keys WHERE key <> ?", [.text("z")])
                    .first?.values["n"] == .int(3))
        }
    }

    static func withDatabase(_ body: (PostgresDatabase) async throws -> Void) async throws {
        // One connection, so every statement of a test runs on the connection the hot ones were prepared on.
        try await IsolatedSchema.withDatabase(poolSize: 1, body)
    }
}
