import Foundation
import LogisticsCore

/// A rider's batch of fixes, `{"type":"locations","ref":"…","fixes":[{"lat":…,"lon":…,"recordedAt":"…"}]}` on the
/// socket or `{"fixes":[…]}` over HTTP, read straight off its bytes. `JSONDecoder` was a tenth of the server's CPU
/// at 8,000 fixes/s (a generic container and a boxed value per field, a closure per date).
///
/// Only the plain shape phones send is read here. An escape in a string, a byte outside ASCII, a number with an
/// exponent, an unknown or repeated key, a wrong type or anything that is not JSON makes it answer nil, and the
/// caller decodes with `JSONDecoder`, which also words the error. So whatever this reads, `JSONDecoder` reads to
/// the same values (`FixBatchReaderTests` compares the two on generated messages).
struct FixBatchReader {
    struct Batch: Equatable {
        var type: String?
        var ref: String?
        var fixes: [LocationFix]?
    }

    static func read(_ text: String) -> Batch? {
        var text = text
        return text.withUTF8 { read(UnsafeRawBufferPointer($0)) }
    }

    static func read(_ bytes: UnsafeRawBufferPointer) -> Batch? {
        var reader = FixBatchReader(bytes: bytes)
        guard let batch = reader.batch() else { return nil }
        reader.skipSpace()
        return reader.index == bytes.count ? batch : nil
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private mutating func batch() -> Batch? {
        var batch = Batch()
        var seen = RepeatedKeys()
        let complete = members { reader, key in
            switch key {
            case "type":
                batch.type = reader.string()
                return seen.first(0) && batch.type != nil
            case "ref":
                guard seen.first(1) else { return false }
                if reader.null() { return true }
                batch.ref = reader.string()
                return batch.ref != nil
            case "fixes":
                batch.fixes = reader.fixes()
                return seen.first(2) && batch.fixes != nil
            default:
                return false
            }
        }
        return complete ? batch : nil
    }

    private mutating func fixes() -> [LocationFix]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var fixes: [LocationFix] = []
        skipSpace()
        if take(UInt8(ascii: "]")) { return fixes }
        while true {
            guard let fix = fix() else { return nil }
            fixes.append(fix)
            skipSpace()
            if take(UInt8(ascii: "]")) { return fixes }
            guard take(UInt8(ascii: ",")) else { return nil }
        }
    }

    private mutating func fix() -> LocationFix? {
        var fix = LocationFix(lat: .nan, lon: .nan, recordedAt: .distantPast)
        var seen = RepeatedKeys()
        let complete = members { reader, key in
            switch key {
            case "lat":
                guard seen.first(0), let lat = reader.number() else { return false }
                fix.lat = lat
            case "lon":
                guard seen.first(1), let lon = reader.number() else { return false }
                fix.lon = lon
            case "recordedAt":
                guard seen.first(2), let date = reader.string().flatMap(RFC3339.date(from:)) else { return false }
                fix.recordedAt = date
            case "accuracyM":
                return seen.first(3) && reader.optionalNumber(&fix.accuracyM)
            case "speedMps":
                return seen.first(4) && reader.optionalNumber(&fix.speedMps)
            case "headingDeg":
                return seen.first(5) && reader.optionalNumber(&fix.headingDeg)
            default:
                return false
            }
            return true
        }
        // lat, lon and recordedAt are required.
        return complete && seen.all(0, 1, 2) ? fix : nil
    }

    /// Which keys of an object were read, by bit: a repeated key sends the message to `JSONDecoder`.
    private struct RepeatedKeys {
        private var bits: UInt8 = 0

        /// Whether this is the key's first time.
        mutating func first(_ bit: Int) -> Bool {
            defer { bits |= 1 << bit }
            return bits & (1 << bit) == 0
        }

        func all(_ required: Int...) -> Bool { required.allSatisfy { bits & (1 << $0) != 0 } }
    }

    private mutating func optionalNumber(_ value: inout Double?) -> Bool {
        if null() { return true }
        value = number()
        return value != nil
    }

    /// Reads `{ "key": value, … }`, handing each key to `member`, which reads the value and says whether it could.
    private mutating func members(_ member: (inout FixBatchReader, String) -> Bool) -> Bool {
        skipSpace()
        guard take(UInt8(ascii: "{")) else { return false }
        skipSpace()
        if take(UInt8(ascii: "}")) { return true }
        while true {
            skipSpace()
            guard let key = string() else { return false }
            skipSpace()
            guard take(UInt8(ascii: ":")) else { return false }
            skipSpace()
            guard member(&self, key) else { return false }
            skipSpace()
            if take(UInt8(ascii: "}")) { return true }
            guard take(UInt8(ascii: ",")) else { return false }
        }
    }

    /// A string of printable ASCII without escapes.
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<(index - 1)]), as: UTF8.self)
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    private mutating func null() -> Bool {
        guard index + 4 <= bytes.count, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
            bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l")
        else { return false }
        index += 4
        return true
    }

    /// A JSON number without an exponent: `-?(0|[1-9][0-9]*)(\.[0-9]+)?`.
    private mutating func number() -> Double? {
        let start = index
        let negative = take(UInt8(ascii: "-"))
        var mantissa: UInt64 = 0
        var exact = true
        var integerDigits = 0
        var fractionDigits = 0
        while index < bytes.count, let digit = Self.digit(bytes[index]) {
            if integerDigits == 1, mantissa == 0 { return nil }  // a leading zero
            exact = exact && Self.accumulate(digit, into: &mantissa)
            integerDigits += 1
            index += 1
        }
        guard integerDigits > 0 else { return nil }
        if take(UInt8(ascii: ".")) {
            while index < bytes.count, let digit = Self.digit(bytes[index]) {
                exact = exact && Self.accumulate(digit, into: &mantissa)
                fractionDigits += 1
                index += 1
            }
            guard fractionDigits > 0 else { return nil }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") { return nil }
        guard exact, fractionDigits < Self.powersOfTen.count else {
            guard index - start <= 64 else { return nil }
            return Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        }
        // Both numbers are exact doubles, so the one division is correctly rounded: the value `Double("…")` gives.
        let magnitude = Double(mantissa) / Self.powersOfTen[fractionDigits]
        return negative ? -magnitude : magnitude
    }

    /// Adds a digit while the mantissa stays below 2⁵³, where every integer is an exact double.
    private static func accumulate(_ digit: UInt64, into mantissa: inout UInt64) -> Bool {
        guard mantissa < (1 << 53) / 10 else { return false }
        mantissa = mantissa * 10 + digit
        return true
    }

    private static func digit(_ byte: UInt8) -> UInt64? {
        (48...57).contains(byte) ? UInt64(byte - 48) : nil
    }

    private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}
