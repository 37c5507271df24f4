import Foundation
import Logging
import LogisticsStore

/// A PostgreSQL schema of a benchmark run's own: every run starts from empty tables and leaves nothing behind. A
/// database kept between runs grew by every run's fixes (1.5 GB after a day), and its inserts slowed as its
/// indexes outgrew PostgreSQL's buffers, so runs an hour apart did not measure the same thing.
enum BenchSchema {
    static func create(prefix: String, url: String) async throws -> String {
        let name = prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let admin = try PostgresDatabase(settings: .init(url: url, poolSize: 1), logger: quiet)
        defer { Task { await admin.close() } }
        try await admin.query("CREATE SCHEMA \(name)")
        return String(name)
    }

    static func drop(_ name: String, url: String) async {
        guard let admin = try? PostgresDatabase(settings: .init(url: url, poolSize: 1), logger: quiet) else { return }
        _ = try? await admin.query("DROP SCHEMA \(name) CASCADE")
        await admin.close()
    }

    private static var quiet: Logger {
        var logger = Logger(label: "bench-schema")
        logger.logLevel = .critical
        return logger
    }
}
