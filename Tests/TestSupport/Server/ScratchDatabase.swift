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
        let admin = try PostgresDatabase(settings: .init(url: baseURL, poolSize: 1), logger: Logger(label: "admin"))
        try await admin.query("CREATE DATABASE \(name)")
        var components = URLComponents(string: baseURL)!
        components.path = "/\(name)"
        return ScratchDatabase(name: String(name), url: components.string!, admin: admin)
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
