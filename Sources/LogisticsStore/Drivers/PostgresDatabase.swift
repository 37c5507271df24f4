import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Synchronization

/// PostgreSQL through a PostgresNIO connection pool; the store for production and for several
/// instances sharing one database.
public final class PostgresDatabase: SQLDatabase {
    public let dialect = SQLDialect.postgres
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger: Logger
    /// How long one operation may wait for the database before the caller is told it is unavailable.
    private let operationTimeout: Duration
    private let probe: PostgresConnectProbe

    public struct Settings: Sendable {
        public var url: String
        public var poolSize: Int
        public var schema: String?
        public var operationTimeout: Duration

        public init(url: String, poolSize: Int = 10, schema: String? = nil, operationTimeout: Duration = .seconds(5)) {
            self.url = url
            self.poolSize = poolSize
            self.schema = schema
            self.operationTimeout = operationTimeout
        }
    }

    public init(settings: Settings, logger: Logger) throws {
        var configuration = try Self.configuration(from: settings.url)
        configuration.options.maximumConnections = max(1, settings.poolSize)
        configuration.options.minimumConnections = 0
        configuration.options.connectTimeout = .seconds(3)
        if let schema = settings.schema {
            configuration.options.additionalStartupParameters = [("search_path", schema)]
        }
        let client = PostgresClient(configuration: configuration, eventLoopGroup: Self.loop, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.operationTimeout = settings.operationTimeout
        probe = try PostgresConnectProbe(
            client: configuration, tls: TLSChoice(url: settings.url), eventLoop: Self.loop.next(), logger: logger)
        runner = Task { await client.run() }
    }

    /// The database's connections get an event loop of their own: on the server's loops (Hummingbird's and
    /// PostgresNIO's default are the same two) every round trip of a group commit queued behind thousands of sockets'
    /// messages, and the commits, and so the acknowledgements, waited with it.
    private static let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    static func configuration(from url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url),
            components.scheme == "postgres" || components.scheme == "postgresql",
            let host = components.host, !host.isEmpty
        else {
            throw StoreError.rejected("DATABASE_URL must look like postgres://user:password@host:5432/database")
        }
        let tls: PostgresClient.Configuration.TLS
        switch TLSChoice(url: url) {
        case .require: tls = .require(.makeClientConfiguration())
        case .prefer: tls = .prefer(.makeClientConfiguration())
        case .disable: tls = .disable
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        return PostgresClient.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: components.user.flatMap { $0.removingPercentEncoding } ?? "postgres",
            password: components.password.flatMap { $0.removingPercentEncoding },
            database: database.isEmpty ? nil : database,
            tls: tls
        )
    }

    /// What the URL's `sslmode` asks of TLS; the pool and `PostgresConnectProbe` each build their own from it.
    enum TLSChoice {
        case disable, prefer, require

        init(url: String) {
            switch URLComponents(string: url)?.queryItems?.last(where: { $0.name == "sslmode" })?.value {
            case "require", "verify-full", "verify-ca": self = .require
            case "prefer": self = .prefer
            default: self = .disable
            }
        }
    }

    /// `NOTIFY` on a channel; listeners on every connection of the database receive the payload at commit.
    /// Names this process among the instances sharing the database. It is held as an advisory lock on the `LISTEN`
    /// connection (`listen`), so another instance can tell from `pg_locks` that a process which claimed an
    /// `Idempotency-Key` is gone (killed, or cut off from the database) and take its claim over at once.
    public let presence = Int64(Int32.random(in: 1...Int32.max))
    /// The first key of the presence locks ("LOGI"), the second being `presence`.
    public static let presenceLockClass: Int32 = 0x4C4F_4749

    /// Whether the process named by `presence` holds its lock, that is, is running and listening.
    public func isPresent(_ presence: Int64) async throws -> Bool {
        try await first(
            """
            SELECT 1 FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 2
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """, [.int(Int64(Self.presenceLockClass)), .int(presence)]) != nil
    }

    /// Several payloads go in one statement, so in one round trip and one commit, and arrive in their order: one
    /// round trip per payload, one after another, fell behind on a busy machine with two instances.
    public func notify(channel: String, payloads: [String]) async throws {
        guard !payloads.isEmpty else { return }
        try await withDeadline {
            let notify: PostgresQuery = "SELECT pg_notify(\(channel), p) FROM unnest(\(payloads)::text[]) AS p"
            do {
                for try await _ in try await self.client.query(notify, logger: self.logger) {}
            } catch {
                throw Self.translate(error)
            }
        }
    }

    /// Holds one pooled connection in `LISTEN` and hands every payload to `receive` until cancelled or the
    /// connection drops (then it throws, and the caller decides when to listen again). The connection also holds
    /// this process's `presence` lock meanwhile; PostgreSQL releases it when the connection ends.
    public func listen(
        channel: String, onListening: @Sendable () -> Void = {}, receive: @Sendable (String) async -> Void
    ) async throws {
        let logger = self.logger
        let presenceLock = PostgresQuery(
            unsafeSQL: "SELECT pg_try_advisory_lock($1, $2)",
            binds: {
                var binds = PostgresBindings(capacity: 2)
                binds.append(Self.presenceLockClass)
                binds.append(Int32(presence))
                return binds
            }())
        try await client.withConnection { connection in
            for try await _ in try await connection.query(presenceLock, logger: logger) {}
            do {
                try await connection.listen(on: channel) { notifications in
                    onListening()
                    for try await notification in notifications { await receive(notification.payload) }
                }
            } catch {
                // The connection may live on in the pool and be closed when idle: the next listening connection
                // must be able to take the lock. (When cancelled, the process is stopping and its pool closes.)
                if !Task.isCancelled {
                    _ = try? await connection.query("SELECT pg_advisory_unlock_all()", logger: logger)
                }
                throw error
            }
        }
    }

    public func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await withDeadline {
            try await Self.run(sql, binds, on: self.client, logger: self.logger)
        }
    }

    @discardableResult
    public func hotQuery(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await withDeadline {
            do {
                return try await self.client.withConnection { connection in
                    try await Self.runHot(sql, binds, on: connection, logger: self.logger)
                }
            } catch {
                throw Self.translate(error)
            }
        }
    }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws
        -> T
    {
        try await withDeadline {
            do {
                return try await self.client.withTransaction(logger: self.logger) { connection in
                    try await body(PostgresTransaction(connection: connection, logger: self.logger))
                }
            } catch let error as PostgresTransactionError {
                throw Self.translate(error.closureError ?? error.beginError ?? error.commitError ?? error)
            }
        }
    }

    public func ping() async throws {
        try await query("SELECT 1")
    }

    public func close() async {
        runner.cancel()
        await runner.value
    }

    /// Bounds an operation so that a dead database turns into a prompt 503, not a hung request. The caller is
    /// answered at the deadline even when the operation does not end on cancellation (a pooled connection lost
    /// mid-statement during a restart can keep it waiting); the operation is cancelled and left to finish alone.
    /// When no answer came, says why a new connection fails, if it does (`PostgresConnectProbe`).
    private func withDeadline<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await raceDeadline(operation)
        } catch is DeadlineMissed {
            let said = await probe.problem().map { "; connecting says: \($0)" } ?? ""
            throw StoreError.unavailable("no answer from PostgreSQL within \(operationTimeout)\(said)")
        }
    }

    private func raceDeadline<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let timeout = operationTimeout
        let race = DeadlineRace<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.start(continuation)
                let work = Task {
                    do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
                }
                let timer = Task {
                    try await Task.sleep(for: timeout)
                    if race.finish(.failure(DeadlineMissed())) {
                        work.cancel()
                    }
                }
                race.whenFinished { timer.cancel() }
                race.onCancel { work.cancel() }
            }
        } onCancel: {
            race.cancel()
        }
    }

    fileprivate static func run(
        _ sql: String, _ binds: [SQLValue], on runner: some PostgresRunner, logger: Logger
    ) async throws -> [SQLRow] {
        let query = PostgresQuery(unsafeSQL: sql.numberingPlaceholders(), binds: bindings(binds))
        do {
            var rows: [SQLRow] = []
            for try await row in try await runner.runQuery(query, logger: logger) { rows.append(try SQLRow(row)) }
            return rows
        } catch {
            throw translate(error)
        }
    }

    /// A hot statement runs prepared on this connection unless it cannot (see `PostgresHotStatements`).
    fileprivate static func runHot(
        _ sql: String, _ binds: [SQLValue], on connection: PostgresConnection, logger: Logger
    ) async throws -> [SQLRow] {
        guard let types = dataTypes(binds),
            let slot = PostgresHotStatements.slot(sql: sql, types: types, logger: logger),
            !PostgresHotStatements.hasFailed(slot: slot, on: connection)
        else { return try await run(sql, binds, on: connection, logger: logger) }
        do {
            return try await PostgresHotStatements.execute(
                slot: slot, bindings: bindings(binds), on: connection, logger: logger
            ).map { try SQLRow($0) }
        } catch {
            PostgresHotStatements.failed(slot: slot, on: connection)
            throw translate(error)
        }
    }

    private static func bindings(_ binds: [SQLValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind {
            case .text(let text): bindings.append(text)
            case .int(let int): bindings.append(int)
            case .double(let double): bindings.append(double)
            case .bytes(let bytes): bindings.append(ByteBuffer(bytes: bytes))
            case .column(let column): bindings.append(PostgresColumn(column: column))
            case .null: bindings.appendNull()
            }
        }
        return bindings
    }

    /// The types `bindings` sends, declared when a statement is prepared; nil with a NULL, which has none.
    private static func dataTypes(_ binds: [SQLValue]) -> [PostgresDataType]? {
        var types: [PostgresDataType] = []
        types.reserveCapacity(binds.count)
        for bind in binds {
            switch bind {
            case .text: types.append(.text)
            case .int: types.append(.int8)
            case .double: types.append(.float8)
            case .bytes: types.append(.bytea)
            case .column(let column): types.append(PostgresColumn.arrayType(column.kind))
            case .null: return nil
            }
        }
        return types
    }

    static func translate(_ error: any Error) -> any Error {
        if error is StoreError || error is CancellationError { return error }
        guard let error = error as? PSQLError else { return error }
        if error.code == .server {
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "server error"
            if state == "23505" { return StoreError.uniqueViolation(message) }
            if state == "40001" || state == "40P01" { return StoreError.retryable(message) }
            if state == "53100" { return StoreError.storageFull(message) }
            // Class 08 (connection), 57P (shutdown / cannot connect now), 53 (insufficient resources).
            if state.hasPrefix("08") || state.hasPrefix("57P") || state.hasPrefix("53") {
                return StoreError.unavailable(message)
            }
            return StoreError.rejected("\(state): \(message)")
        }
        return StoreError.unavailable("\(error.code)")
    }
}

/// Lets pooled queries and in-transaction queries share one code path.
protocol PostgresRunner: Sendable {
    func runQuery(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence
}

extension PostgresClient: PostgresRunner {
    func runQuery(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        try await self.query(query, logger: logger)
    }
}

extension PostgresConnection: PostgresRunner {
    func runQuery(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        try await self.query(query, logger: logger)
    }
}

private struct PostgresTransaction: SQLExecutor {
    let connection: PostgresConnection
    let logger: Logger
    var dialect: SQLDialect { .postgres }

    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await PostgresDatabase.run(sql, binds, on: connection, logger: logger)
    }

    @discardableResult
    func hotQuery(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await PostgresDatabase.runHot(sql, binds, on: connection, logger: logger)
    }
}

extension SQLRow {
    fileprivate init(_ row: PostgresRow) throws {
        var values: [String: SQLValue] = [:]
        for cell in row { values[cell.columnName] = try SQLValue(cell) }
        self.init(values: values)
    }
}

extension SQLValue {
    fileprivate init(_ cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        switch cell.dataType {
        case .int2, .int4, .int8: self = .int(try cell.decode(Int64.self))
        case .float4, .float8: self = .double(try cell.decode(Double.self))
        case .numeric: self = .double(Double(try cell.decode(String.self)) ?? 0)
        case .bool: self = .int(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea:
            var buffer = try cell.decode(ByteBuffer.self)
            self = .bytes(buffer.readBytes(length: buffer.readableBytes) ?? [])
        default: self = .text(try cell.decode(String.self))
        }
    }
}
