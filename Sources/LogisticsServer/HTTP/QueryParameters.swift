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
}
