import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import Testing

@testable import TestSupport

@Suite("Schema and event log", .timeLimit(.minutes(3)))
struct StoreTests {
    @Test("order_events is append-only: UPDATE and DELETE fail in the database itself", arguments: StoreKind.available)
    func appendOnly(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            let created = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
            let orderId = try #require(created["orderId"] as? String)
            await #expect(throws: StoreError.self) {
                try await server.database.query(
                    "UPDATE order_events SET type = 'Forged' WHERE order_id = ?", [.text(orderId)])
            }
            await #expect(throws: StoreError.self) {
                try await server.database.query("DELETE FROM order_events WHERE order_id = ?", [.text(orderId)])
            }
            let events = try await server.repository.events(orderId: UUID(uuidString: orderId)!)
            #expect(events.map(\.type) == ["OrderCreated"])
        }
    }

    @Test("running the migrations again applies nothing and keeps the data", arguments: StoreKind.available)
    func migrationsAreIdempotent(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            _ = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
            let migrator = Migrator(database: server.database, logger: Logger(label: "test"))
            #expect(try await migrator.migrate() == [])
            #expect(try await migrator.migrate() == [])
            #expect(try await server.count("schema_migrations") >= 1)
            #expect(try await server.count("orders") == 1)
        }
    }

    @Test("a fresh database gets every migration exactly once")
    func freshSQLite() async throws {
        let database = try await SQLiteDatabase.open(path: nil, logger: Logger(label: "test"))
        let applied = try await Migrator(database: database, logger: Logger(label: "test")).migrate()
        #expect(applied.first == 1)
        #expect(try await Migrator(database: database, logger: Logger(label: "test")).migrate() == [])
        await database.close()
        // An application stopped twice (a test client run again) closes twice: the second does nothing. SQLiteNIO's
        // own second close crashed the process.
        await database.close()
    }
}
