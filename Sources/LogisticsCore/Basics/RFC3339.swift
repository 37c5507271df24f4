import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// RFC 3339 UTC timestamps with milliseconds, the API's one time format.
///
/// Every rider fix and every tracking message carries one, so it is printed (`2026-11-23T14:03:12.345Z`) and read
/// by hand; the reader takes every RFC 3339 date-time, and other ISO 8601 shapes go through Foundation's parser.
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

    /// Any RFC 3339 `date-time` (section 5.6), as the OpenAPI `format: date-time` promises: `T` or `t`, any number
    /// of fraction digits (read to the nanosecond), `Z`, `z` or a `±hh:mm` offset, and a leap second (`:60`, read
    /// as the start of the next minute, as timegm does). nil for anything else, which the general parser then reads.
    static func fastDate(from string: String) -> Date? {
        let bytes = Array(string.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        func separator(_ index: Int, _ characters: String) -> Bool {
            index < bytes.count && characters.utf8.contains(bytes[index])
        }
        guard separator(4, "-"), separator(7, "-"), separator(10, "Tt"), separator(13, ":"), separator(16, ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        var index = 19
        var nanoseconds = 0
        if separator(index, ".") {
            index += 1
            let first = index
            while let digit = number(index..<(index + 1)) {
                if index - first < 9 { nanoseconds = nanoseconds * 10 + digit }
                index += 1
            }
            guard index > first else { return nil }
            for _ in min(9, index - first)..<9 { nanoseconds *= 10 }
        }
        var offsetSeconds = 0
        if separator(index, "Zz") {
            guard index + 1 == bytes.count else { return nil }
        } else {
            guard separator(index, "+-"), index + 6 == bytes.count, separator(index + 3, ":"),
                let offsetHours = number((index + 1)..<(index + 3)),
                let offsetMinutes = number((index + 4)..<(index + 6)),
                offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = (offsetHours * 3600 + offsetMinutes * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = Int(timegm(&parts)) - offsetSeconds
        return Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(nanoseconds) / 1e9)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
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
