import Foundation
import Logging
import LogisticsStore
import Testing

/// The databases an end-to-end test runs against: SQLite always, PostgreSQL when
/// `LOGISTICS_TEST_DATABASE_URL` is set (CI sets it).
enum StoreKind: String, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    static let postgresURL: String? = {
        let url = ProcessInfo.processInfo.environment["LOGISTICS_TEST_DATABASE_URL"]
        return url?.isEmpty == false ? url : nil
    }()

    static var available: [StoreKind] {
        if postgresURL == nil {
            noteSkippedPostgres()
            return [.sqlite]
        }
        return [.sqlite, .postgres]
    }

    private static let skipNotice: Void = {
        FileHandle.standardError.write(
            Data(
                "note: LOGISTICS_TEST_DATABASE_URL is not set; PostgreSQL variants of the end-to-end tests are skipped\n"
                    .utf8))
    }()

    static func noteSkippedPostgres() { _ = skipNotice }
}

/// A PostgreSQL schema of its own for one test, dropped afterwards.
struct IsolatedSchema {
    let name: String
    let url: String

    static func create(url: String) async throws -> IsolatedSchema {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
        let admin = try PostgresDatabase(
            settings: .init(url: url, poolSize: 1, operationTimeout: .seconds(30)), logger: Logger(label: "test-admin"))
        try await admin.query("CREATE SCHEMA \(name)")
        await admin.close()
        return IsolatedSchema(name: String(name), url: url)
    }

    /// A pool on a schema of its own, dropped afterwards, however `body` ends.
    static func withDatabase(
        poolSize: Int, _ body: (PostgresDatabase) async throws -> Void
    ) async throws {
        let url = try #require(StoreKind.postgresURL)
        let schema = try await create(url: url)
        let database = try PostgresDatabase(
            settings: .init(url: url, poolSize: poolSize, schema: schema.name, operationTimeout: .seconds(30)),
            logger: Logger(label: "test"))
        do {
            try await body(database)
        } catch {
            await database.close()
            await schema.drop()
            throw error
        }
        await database.close()
        await schema.drop()
    }

    func drop() async {
        guard
            let admin = try? PostgresDatabase(
                settings: .init(url: url, poolSize: 1, operationTimeout: .seconds(30)),
                logger: Logger(label: "test-admin"))
        else { return }
        _ = try? await admin.query("DROP SCHEMA \(name) CASCADE")
        await admin.close()
    }
}
