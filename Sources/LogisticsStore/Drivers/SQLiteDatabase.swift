import Foundation
import Logging
import NIOCore
import SQLiteNIO
import Synchronization

/// The embedded store: one SQLite file in WAL mode.
///
/// SQLite serialises writers anyway, so the store keeps one connection and queues all work on it in
/// arrival order; a transaction holds the queue until it commits.
public final class SQLiteDatabase: SQLDatabase {
    public let dialect = SQLDialect.sqlite
    private let connection: SQLiteConnection
    private let lock = AsyncSerialLock()
    /// SQLiteNIO's close is not idempotent (a second one dereferences the freed handle): only the first closes.
    private let closed = Atomic(false)
    /// This opening of the file: only one process owns an SQLite database, so anything claimed under another boot
    /// (a process killed mid-request) is abandoned the moment this one starts.
    public let boot = Int64(Int32.random(in: 1...Int32.max))

    private init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Opens (creating if needed) the database file. `path` nil opens a private in-memory database.
    public static func open(path: String?, logger: Logger) async throws -> SQLiteDatabase {
        let storage: SQLiteConnection.Storage = path.map { .file(path: $0) } ?? .memory
        let connection = try await SQLiteConnection.open(storage: storage, logger: logger)
        let database = SQLiteDatabase(connection: connection)
        // WAL with synchronous=NORMAL keeps every committed transaction across a process crash
        // (kill -9); only an OS crash or power loss can lose the last commits.
        for pragma in [
            "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON",
            "PRAGMA busy_timeout = 5000",
            // Up to 64 MiB of pages, used only as the data grows: with the default 2 MiB a large group commit
            // spilled dirty pages to the WAL in the middle of its transaction.
            "PRAGMA cache_size = -65536",
        ] {
            try await database.query(pragma)
        }
        return database
    }

    public func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await lock.withLock { try await self.run(sql, binds) }
    }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws
        -> T
    {
        try await lock.withLock {
            try await self.run("BEGIN IMMEDIATE", [])
            do {
                let result = try await body(SQLiteTransaction(database: self))
                try await self.run("COMMIT", [])
                return result
            } catch {
                _ = try? await self.run("ROLLBACK", [])
                throw error
            }
        }
    }

    public func ping() async throws {
        try await query("SELECT 1")
    }

    /// Closes even when the caller's task is cancelled: SQLite must release the file, or the WAL is left
    /// for the next start to recover.
    public func close() async {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let connection = self.connection
        await lock.withLockIgnoringCancellation {
            await Task.detached { try? await connection.close() }.value
        }
    }

    @discardableResult
    fileprivate func run(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        let sqliteBinds = binds.map(\.sqliteData)
        do {
            let rows = try await connection.query(sql, sqliteBinds)
            return rows.map { row in
                var values: [String: SQLValue] = [:]
                for column in row.columns { values[column.name] = SQLValue(column.data) }
                return SQLRow(values: values)
            }
        } catch let error as SQLiteError {
            if error.message.contains("UNIQUE constraint failed") {
                throw StoreError.uniqueViolation(error.message)
            }
            // A full disk fails the statement and SQLite rolls it back; what was stored before stays intact.
            if case .full = error.reason { throw StoreError.storageFull(error.message) }
            throw StoreError.rejected(error.message)
        }
    }
}

/// Statements issued inside a transaction that already holds the connection.
private struct SQLiteTransaction: SQLExecutor {
    let database: SQLiteDatabase
    var dialect: SQLDialect { .sqlite }

    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await database.run(sql, binds)
    }
}

extension SQLValue {
    fileprivate var sqliteData: SQLiteData {
        switch self {
        case .text(let text): .text(text)
        case .int(let int): .integer(Int(int))
        case .double(let double): .float(double)
        case .bytes(let bytes): .blob(ByteBuffer(bytes: bytes))
        case .column: preconditionFailure("SQLite has no arrays; columns are bound only on PostgreSQL")
        case .null: .null
        }
    }

    fileprivate init(_ data: SQLiteData) {
        switch data {
        case .integer(let int): self = .int(Int64(int))
        case .float(let double): self = .double(double)
        case .text(let text): self = .text(text)
        case .blob(var buffer): self = .bytes(buffer.readBytes(length: buffer.readableBytes) ?? [])
        case .null: self = .null
        }
    }
}
