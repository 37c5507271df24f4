/// The two SQL dialects the store speaks.
public enum SQLDialect: String, Sendable {
    case sqlite
    case postgres
}

/// Runs statements. Statements use `?` placeholders; the PostgreSQL driver renumbers them.
public protocol SQLExecutor: Sendable {
    var dialect: SQLDialect { get }
    @discardableResult
    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow]
    /// The same, for one of the few statements run many times a second: PostgreSQL parses and plans it once per
    /// connection (`PostgresHotStatements`). Keep the SQL text the same from call to call.
    @discardableResult
    func hotQuery(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow]
}

extension SQLExecutor {
    @discardableResult
    public func query(_ sql: String) async throws -> [SQLRow] { try await query(sql, []) }

    @discardableResult
    public func hotQuery(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] { try await query(sql, binds) }

    public func first(_ sql: String, _ binds: [SQLValue] = []) async throws -> SQLRow? {
        try await query(sql, binds).first
    }
}

/// A database connection (or pool) that can run work in a transaction.
public protocol SQLDatabase: SQLExecutor {
    /// Runs `body` in one transaction; commits when it returns, rolls back when it throws.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Checks the database answers.
    func ping() async throws
    func close() async
}

/// `?, ?, …` for an `IN (…)` list of `count` values.
func placeholders(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ", ")
}

extension String {
    /// `?` placeholders renumbered as `$1, $2, …` for PostgreSQL. Every statement sent goes through here, so it copies
    /// the bytes between placeholders: walking the text's characters took tens of times longer for the group
    /// commit's long statements, enough to show in a profile of the whole machine under load.
    func numberingPlaceholders() -> String {
        var sql = self
        return sql.withUTF8 { source in
            var numbered: [UInt8] = []
            numbered.reserveCapacity(source.count + 32)
            var number = 0
            var copied = 0
            // `?` is ASCII, so it is never one of the bytes of another character.
            for position in source.indices where source[position] == UInt8(ascii: "?") {
                numbered.append(contentsOf: UnsafeBufferPointer(rebasing: source[copied..<position]))
                number += 1
                numbered.append(UInt8(ascii: "$"))
                numbered.append(contentsOf: String(number).utf8)
                copied = position + 1
            }
            numbered.append(contentsOf: UnsafeBufferPointer(rebasing: source[copied...]))
            return String(decoding: numbered, as: UTF8.self)
        }
    }
}
