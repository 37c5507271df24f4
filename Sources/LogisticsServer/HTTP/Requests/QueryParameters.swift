import Foundation
import Hummingbird
import LogisticsCore

/// `?name=value` parameters read the same way by every list endpoint, with the same 400s.
extension Request {
    /// One of an enumeration's raw values; nil when the parameter is absent.
    func queryValue<Value: RawRepresentable & CaseIterable>(_ name: String, as type: Value.Type) throws -> Value?
    where Value.RawValue == String {
        guard let raw = uri.queryParameters[name[...]] else { return nil }
        guard let value = Value(rawValue: String(raw)) else {
            throw LogisticsError.validation(
                field: name, "must be one of \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    /// `?limit=`: a whole number within `range`, else `defaultLimit`.
    func queryLimit(default defaultLimit: Int, range: ClosedRange<Int>) throws -> Int {
        guard let raw = uri.queryParameters["limit"] else { return defaultLimit }
        guard let limit = Int(String(raw)), range.contains(limit) else {
            throw LogisticsError.validation(
                field: "limit", "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return limit
    }

    /// 400 naming the first parameter a route does not read.
    func refuseUnknownQuery(allowed: Set<String>) throws {
        for (name, _) in uri.queryParameters where !allowed.contains(String(name)) {
            throw LogisticsError.validation(
                field: String(name), "is not a parameter of this list (\(allowed.sorted().joined(separator: ", ")))")
        }
    }

    /// `true` or `false`; nil when absent.
    func queryBool(_ name: String) throws -> Bool? {
        guard let raw = uri.queryParameters[name[...]] else { return nil }
        switch raw {
        case "true": return true
        case "false": return false
        default: throw LogisticsError.validation(field: name, "must be true or false")
        }
    }

    /// A UUID; nil when absent.
    func queryUUID(_ name: String) throws -> UUID? {
        guard let raw = uri.queryParameters[name[...]] else { return nil }
        guard let id = UUID(uuidString: String(raw)) else {
            throw LogisticsError.validation(field: name, "must be a UUID")
        }
        return id
    }

    /// An RFC 3339 date-time; nil when absent.
    func queryDate(_ name: String) throws -> Date? {
        guard let raw = uri.queryParameters[name[...]] else { return nil }
        guard let date = RFC3339.date(from: String(raw)) else {
            throw LogisticsError.validation(field: name, "must be an RFC 3339 date-time")
        }
        return date
    }
}
