import Foundation
import Logging
import LogisticsStore

/// A PostgreSQL database of a test's own, for outage tests that end its connections and refuse new ones
/// without touching the cluster the other suites share.
struct ScratchDatabase {
    let name: String
    let url: String
    let admin: PostgresDatabase

    static func create(prefix: String, baseURL: String) async throws -> ScratchDatabase {
        let name = prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        // CREATE DATABASE copies a template and waits for a checkpoint: seconds when every suite runs at once.
        let admin = try PostgresDatabase(
            settings: .init(url: baseURL, poolSize: 1, operationTimeout: .seconds(30)), logger: Logger(label: "admin"))
        try await admin.query("CREATE DATABASE \(name)")
        var components = URLComponents(string: baseURL)!
        components.path = "/\(name)"
        // Migrated here, with a patient connection: a server started on it with a short database deadline (what the
        // outage tests measure) then only checks the schema, instead of timing out creating it on a busy machine.
        let url = components.string!
        let migrating = try PostgresDatabase(
            settings: .init(url: url, poolSize: 1, operationTimeout: .seconds(30)), logger: Logger(label: "admin"))
        do {
            try await Migrator(database: migrating, logger: Logger(label: "admin")).migrate()
        } catch {
            await migrating.close()
            throw error
        }
        await migrating.close()
        return ScratchDatabase(name: String(name), url: url, admin: admin)
    }

    /// What the server sees when the database host goes away: its connections end and new ones are refused.
    func goAway() async throws {
        try await admin.query("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS false")
        try await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
    }

    func comeBack() async throws {
        try await admin.query("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS true")
    }

    func drop() async {
        try? await comeBack()
        _ = try? await admin.query("DROP DATABASE \(name) WITH (FORCE)")
        await admin.close()
    }
}
