import Foundation
import Logging

/// One versioned schema change, with its statements for each dialect.
struct Migration: Sendable {
    var version: Int
    var name: String
    var sqlite: [String]
    var postgres: [String]
    /// SQLite rebuilds a table to change a column's constraint (SQLite cannot ALTER one): with foreign keys on,
    /// dropping the old table would orphan the rows that refer to it. They are off for this migration only, and
    /// checked before it commits.
    var sqliteRebuildsTable = false

    /// Statements shared by both dialects, with `AUTO_ID` written per dialect.
    init(
        version: Int, name: String, common: [String], sqliteOnly: [String] = [], postgresOnly: [String] = [],
        sqliteRebuildsTable: Bool = false
    ) {
        self.version = version
        self.name = name
        self.sqliteRebuildsTable = sqliteRebuildsTable
        sqlite =
            common.map { $0.replacingOccurrences(of: "AUTO_ID", with: "INTEGER PRIMARY KEY AUTOINCREMENT") }
            + sqliteOnly
        postgres = common.map { $0.replacingOccurrences(of: "AUTO_ID", with: "BIGSERIAL PRIMARY KEY") } + postgresOnly
    }

    func statements(for dialect: SQLDialect) -> [String] { dialect == .sqlite ? sqlite : postgres }
}

/// Applies pending migrations, each in its own transaction, recording them in `schema_migrations`.
public struct Migrator: Sendable {
    let database: any SQLDatabase
    let logger: Logger

    public init(database: any SQLDatabase, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// Returns the versions applied by this call (empty when the schema was already current). `last` stops at an
    /// earlier version, for tests of a migration over the data of the schema before it.
    @discardableResult
    public func migrate(through last: Int = .max) async throws -> [Int] {
        try await database.query(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)"
        )
        var applied: [Int] = []
        for migration in Schema.migrations where migration.version <= last {
            // Outside the transaction: SQLite ignores this pragma inside one.
            let foreignKeysOff = migration.sqliteRebuildsTable && database.dialect == .sqlite
            if foreignKeysOff { try await database.query("PRAGMA foreign_keys = OFF") }
            let applying = try await apply(migration, checkingReferences: foreignKeysOff)
            if foreignKeysOff { try await database.query("PRAGMA foreign_keys = ON") }
            let didApply = try applying.get()
            if didApply {
                logger.info(
                    "applied migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
                applied.append(migration.version)
            }
        }
        return applied
    }

    /// One migration in its transaction: whether it was applied now (false: another instance had applied it). The
    /// failure is returned, not thrown, so the caller can restore foreign keys before passing it on.
    private func apply(_ migration: Migration, checkingReferences foreignKeysOff: Bool) async throws
        -> Result<Bool, any Error>
    {
        do {
            return .success(
                try await database.transaction { transaction in
                    if transaction.dialect == .postgres {
                        // Several instances may start at once; one applies, the others wait and skip. The lock is the
                        // schema's: instances on other schemas of the database (tests, staging) need not wait.
                        try await transaction.query(
                            "SELECT pg_advisory_xact_lock(72100001, hashtext(current_schema()))")
                    }
                    let done = try await transaction.first(
                        "SELECT version FROM schema_migrations WHERE version = ?", [.int(migration.version)])
                    if done != nil { return false }
                    for statement in migration.statements(for: transaction.dialect) {
                        try await transaction.query(statement)
                    }
                    if foreignKeysOff {
                        let broken = try await transaction.query("PRAGMA foreign_key_check")
                        guard broken.isEmpty else {
                            throw StoreError.corrupt(
                                "migration \(migration.version) left \(broken.count) broken references")
                        }
                    }
                    try await transaction.query(
                        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                        [.int(migration.version), .text(migration.name), .date(Date())])
                    return true
                })
        } catch {
            return .failure(error)
        }
    }
}
