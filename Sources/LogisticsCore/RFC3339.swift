import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// RFC 3339 UTC timestamps with milliseconds, the API's one time format.
///
/// Every rider fix and every tracking message carries one, so the common shape
/// (`2026-11-23T14:03:12.345Z`) is printed and read by hand; anything else (offsets, other precisions) goes
/// through Foundation's ISO 8601 parser.
public enum RFC3339 {
    /// Milliseconds are printed from the same integer the store keeps, so printing and storing agree.
    public static func string(from date: Date) -> String {
        let millis = date.epochMillis
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let fraction = Int(millis - seconds * 1000)
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil, (0...9999).contains(Int(parts.tm_year) + 1900) else {
            let whole = Date(timeIntervalSince1970: TimeInterval(seconds))
                .formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
            return String(whole.dropLast()) + String(format: ".%03dZ", fraction)
        }
        var text = ""
        text.reserveCapacity(24)
        func append(_ value: Int, width: Int) {
            let digits = String(value)
            if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
            text += digits
        }
        append(Int(parts.tm_year) + 1900, width: 4)
        text += "-"
        append(Int(parts.tm_mon) + 1, width: 2)
        text += "-"
        append(Int(parts.tm_mday), width: 2)
        text += "T"
        append(Int(parts.tm_hour), width: 2)
        text += ":"
        append(Int(parts.tm_min), width: 2)
        text += ":"
        append(Int(parts.tm_sec), width: 2)
        text += "."
        append(fraction, width: 3)
        text += "Z"
        return text
    }

    /// Parses with or without fractional seconds, any offset.
    public static func date(from string: String) -> Date? {
        if let date = fastDate(from: string) { return date }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(string) { return date }
        return try? Date.ISO8601FormatStyle().parse(string)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fff]Z` only; nil for anything else, which the general parser then reads.
    static func fastDate(from string: String) -> Date? {
        let bytes = Array(string.utf8)
        guard bytes.count == 20 || bytes.count == 24, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        func separator(_ index: Int, _ character: Character) -> Bool { bytes[index] == character.asciiValue! }
        guard separator(4, "-"), separator(7, "-"), separator(10, "T") || separator(10, "t"), separator(13, ":"),
            separator(16, ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var millis = 0
        if bytes.count == 24 {
            guard separator(19, "."), let fraction = number(20..<23) else { return nil }
            millis = fraction
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        // timegm normalises 31 February into March; a date that does not exist is not a date.
        guard parts.tm_mday == Int32(day), parts.tm_mon == Int32(month - 1) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(millis) / 1000)
    }
}

extension RFC3339 {
    /// Times in JSON as this format: how every API document, stored payload and client writes them.
    public static var jsonEncoding: JSONEncoder.DateEncodingStrategy {
        .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
    }

    /// Reads times written as this format; anything else is a decoding error that names the expected shape.
    public static var jsonDecoding: JSONDecoder.DateDecodingStrategy {
        .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339.date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "must be an RFC 3339 date-time such as 2026-01-31T12:00:00.000Z")
            }
            return date
        }
    }
}
