import Foundation
import LogisticsCore

/// A value bound into, or read out of, a SQL statement. Both dialects store ids as text, instants as
/// epoch milliseconds and flags as 0/1, so one set of queries serves SQLite and PostgreSQL.
public enum SQLValue: Sendable, Equatable {
    case text(String)
    case int(Int64)
    case double(Double)
    case bytes([UInt8])
    case column(SQLColumn)
    case null

    public static func uuid(_ id: UUID) -> SQLValue { .text(id.lowercased) }
    public static func uuid(_ id: UUID?) -> SQLValue { id.map { .uuid($0) } ?? .null }
    public static func date(_ date: Date) -> SQLValue { .int(date.epochMillis) }
    public static func date(_ date: Date?) -> SQLValue { date.map { .date($0) } ?? .null }
    public static func text(_ text: String?) -> SQLValue { text.map { .text($0) } ?? .null }
    public static func double(_ value: Double?) -> SQLValue { value.map { .double($0) } ?? .null }
    public static func int(_ value: Int) -> SQLValue { .int(Int64(value)) }
    public static func bool(_ value: Bool) -> SQLValue { .int(value ? 1 : 0) }
}

/// A whole column of a write, bound once: PostgreSQL reads it as a binary array (`unnest(CAST(? AS FLOAT8[]))`),
/// so a group commit of thousands of fixes is a few binds whatever its size. SQLite has no arrays.
public struct SQLColumn: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case text = "TEXT"
        case bigint = "BIGINT"
        case float8 = "FLOAT8"
    }

    public let kind: Kind
    /// Each `.null` or of the kind: `.text`, `.int`, or `.double` (an `.int` is also read as a FLOAT8).
    public let values: [SQLValue]

    public init(_ kind: Kind, _ values: [SQLValue]) {
        self.kind = kind
        self.values = values
    }
}

/// One result row, addressed by column name.
public struct SQLRow: Sendable {
    public var values: [String: SQLValue]

    public init(values: [String: SQLValue]) { self.values = values }

    public func isNull(_ column: String) -> Bool { (values[column] ?? .null) == .null }

    public func string(_ column: String) throws -> String {
        guard let value = optionalString(column) else { throw StoreError.corrupt("\(column) is null") }
        return value
    }

    public func optionalString(_ column: String) -> String? {
        switch values[column] {
        case .text(let text): text
        case .int(let int): String(int)
        case .double(let double): String(double)
        default: nil
        }
    }

    public func uuid(_ column: String) throws -> UUID {
        guard let id = try optionalUUID(column) else { throw StoreError.corrupt("\(column) is null") }
        return id
    }

    public func optionalUUID(_ column: String) throws -> UUID? {
        guard let text = optionalString(column) else { return nil }
        guard let id = UUID(uuidString: text) else { throw StoreError.corrupt("\(column) is not a uuid") }
        return id
    }

    public func int(_ column: String) throws -> Int {
        guard let value = optionalInt(column) else { throw StoreError.corrupt("\(column) is null") }
        return value
    }

    public func optionalInt(_ column: String) -> Int? {
        switch values[column] {
        case .int(let int): Int(int)
        case .double(let double): Int(double)
        case .text(let text): Int(text)
        default: nil
        }
    }

    public func optionalDouble(_ column: String) -> Double? {
        switch values[column] {
        case .double(let double): double
        case .int(let int): Double(int)
        case .text(let text): Double(text)
        default: nil
        }
    }

    public func bool(_ column: String) -> Bool { (optionalInt(column) ?? 0) != 0 }

    public func date(_ column: String) throws -> Date { Date(epochMillis: Int64(try int(column))) }

    public func optionalDate(_ column: String) -> Date? { optionalInt(column).map { Date(epochMillis: Int64($0)) } }

    public func optionalBytes(_ column: String) -> [UInt8]? {
        if case .bytes(let bytes) = values[column] { return bytes }
        return nil
    }
}

public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database cannot be reached; the caller may retry later.
    case unavailable(String)
    /// A unique constraint refused the write.
    case uniqueViolation(String)
    /// A row did not hold what the schema promises.
    case corrupt(String)
    /// The database refused a statement (trigger, constraint, syntax).
    case rejected(String)
    /// The disk (or the database's quota) is full: nothing was written; retry once space is back.
    case storageFull(String)
    /// A deadlock or serialization failure: the transaction was rolled back and may be run again.
    case retryable(String)

    public var description: String {
        switch self {
        case .unavailable(let detail): "database unavailable: \(detail)"
        case .uniqueViolation(let detail): "unique violation: \(detail)"
        case .corrupt(let detail): "corrupt row: \(detail)"
        case .rejected(let detail): "statement rejected: \(detail)"
        case .retryable(let detail): "transaction conflict: \(detail)"
        case .storageFull(let detail): "storage full: \(detail)"
        }
    }
}
