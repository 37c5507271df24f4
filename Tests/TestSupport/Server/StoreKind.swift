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

/// A PostgreSQL schema of its own for one test or benchmark run, dropped afterwards: every run starts from empty
/// tables and leaves nothing behind (a database kept between benchmark runs grew by every run's fixes, and runs
/// an hour apart no longer measured the same thing).
public struct IsolatedSchema: Sendable {
    public let name: String
    public let url: String

    public init(name: String, url: String) {
        self.name = name
        self.url = url
    }

    public static func create(url: String, prefix: String = "t") async throws -> IsolatedSchema {
        let name = prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
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

    public func drop() async {
        guard
            let admin = try? PostgresDatabase(
                settings: .init(url: url, poolSize: 1, operationTimeout: .seconds(30)),
                logger: Logger(label: "test-admin"))
        else { return }
        _ = try? await admin.query("DROP SCHEMA \(name) CASCADE")
        await admin.close()
    }
}
