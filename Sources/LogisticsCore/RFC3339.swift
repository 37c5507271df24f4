import Foundation

/// RFC 3339 UTC timestamps with milliseconds, the API's one time format.
public enum RFC3339 {
    /// Milliseconds are printed from the same integer the store keeps, so printing and storing agree.
    public static func string(from date: Date) -> String {
        let millis = date.epochMillis
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let fraction = millis - seconds * 1000
        let whole = Date(timeIntervalSince1970: TimeInterval(seconds))
            .formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
        return String(whole.dropLast()) + String(format: ".%03lldZ", fraction)
    }

    /// Parses with or without fractional seconds, any offset.
    public static func date(from string: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(string) { return date }
        return try? Date.ISO8601FormatStyle().parse(string)
    }
}
