import Foundation
import LogisticsCore
import LogisticsServer

/// Top-level fields of one of the server's flat JSON messages, read off its bytes where they arrived. The load
/// generator reads thousands of them a second on the cores the servers it measures run on: `JSONSerialization`,
/// or even a `String` per message, would make the generator the bottleneck.
///
/// A field is the first `"name":` in the message, as in `{"type":"location","seq":12,"lat":43.73,...}`; that is
/// only right for keys that no nested object before them repeats, which holds for `type`, `seq`, `lat`,
/// `recordedAt` and `ref` in the tracking and rider-stream messages.
struct FlatJSON {
    let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The value's bytes, without its quotes; nil when the field is missing or its string never ends.
    func value(_ name: StaticString) -> UnsafeRawBufferPointer? {
        let key = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        // `"` + name + `":`
        let length = key.count + 3
        guard bytes.count >= length else { return nil }
        var start = 0
        while start + length <= bytes.count {
            if bytes[start] == Self.quote, bytes[start + key.count + 1] == Self.quote,
                bytes[start + key.count + 2] == Self.colon,
                memcmp(bytes.baseAddress! + start + 1, key.baseAddress!, key.count) == 0
            {
                return value(at: start + length)
            }
            start += 1
        }
        return nil
    }

    private func value(at index: Int) -> UnsafeRawBufferPointer? {
        var first = index
        let quoted = first < bytes.count && bytes[first] == Self.quote
        if quoted { first += 1 }
        var end = first
        while end < bytes.count {
            let byte = bytes[end]
            if quoted ? byte == Self.quote : byte == Self.comma || byte == Self.closingBrace { break }
            end += 1
        }
        if quoted && end == bytes.count { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[first..<end])
    }

    func has(_ name: StaticString, equalTo expected: StaticString) -> Bool {
        guard let value = value(name), value.count == expected.utf8CodeUnitCount else { return false }
        return memcmp(value.baseAddress!, expected.utf8Start, value.count) == 0
    }

    /// A whole number, as `Int("…")` reads it.
    func int(_ name: StaticString) -> Int? {
        guard let value = value(name) else { return nil }
        return Self.int(value)
    }

    func double(_ name: StaticString) -> Double? {
        guard let value = value(name) else { return nil }
        return Self.double(value)
    }

    func date(_ name: StaticString) -> Date? {
        guard let value = value(name) else { return nil }
        return Self.date(value)
    }

    /// A whole number, as `Int("…")` reads it: JSON's plain form off the bytes, any other (a sign, leading zeros)
    /// by the standard parser.
    static func int(_ digits: UnsafeRawBufferPointer) -> Int? {
        var reader = JSONByteReader(digits)
        if let value = reader.integer(), reader.isAtEnd() { return Int(value) }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    /// The same `Double` as `Double("…")`, read as the server reads riders' fixes (`JSONByteReader`), which stays
    /// exact; any other form goes to the standard parser. The lost-fix check compares these with the riders'
    /// values, so near is not enough.
    static func double(_ text: UnsafeRawBufferPointer) -> Double? {
        var reader = JSONByteReader(text)
        if let value = reader.number(), reader.isAtEnd() { return value }
        return Double(String(decoding: text, as: UTF8.self))
    }

    /// `2026-03-01T12:00:00.123Z` as `RFC3339.string` writes it, read without Foundation's date parsing; any other
    /// form goes to `RFC3339.date`.
    static func date(_ text: UnsafeRawBufferPointer) -> Date? {
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= text.count else { return nil }
            var value = 0
            for index in from..<(from + count) {
                let digit = Int(text[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        func separator(_ index: Int, _ character: Unicode.Scalar) -> Bool {
            index < text.count && text[index] == UInt8(ascii: character)
        }
        guard text.count >= 20, text.last == UInt8(ascii: "Z"), separator(4, "-"), separator(7, "-"),
            separator(10, "T"), separator(13, ":"), separator(16, ":"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2), (1...12).contains(month), (1...31).contains(day),
            hour < 24, minute < 60, second < 60
        else { return RFC3339.date(from: String(decoding: text, as: UTF8.self)) }
        var fraction = 0.0
        if text.count > 20 {
            let digits = text.count - 21
            guard separator(19, "."), digits > 0, digits <= 9, let value = number(20, digits) else {
                return RFC3339.date(from: String(decoding: text, as: UTF8.self))
            }
            fraction = Double(value) / pow(10, Double(digits))
        }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static let quote = UInt8(ascii: "\"")
    private static let colon = UInt8(ascii: ":")
    private static let comma = UInt8(ascii: ",")
    private static let closingBrace = UInt8(ascii: "}")
}
