import Foundation

/// JSON read off its bytes, for the few hot messages whose `JSONDecoder` cost showed in profiles (a rider's fix
/// batch, another instance's relayed fixes, and the load generator's reading of the server's messages). It reads a
/// narrow, strict subset and answers nil (or false) for anything outside it: a string with an escape or a byte
/// outside printable ASCII, a number with an exponent, bad JSON. Callers then decode with `JSONDecoder` (or
/// `Double("…")`), so this never has to read everything.
public struct JSONByteReader {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Whether only whitespace is left.
    public mutating func isAtEnd() -> Bool {
        skipSpace()
        return index == bytes.count
    }

    /// Which keys of an object were read, by bit: a repeated key is not read.
    struct RepeatedKeys {
        private var bits: UInt8 = 0

        /// Whether this is the key's first time.
        mutating func first(_ bit: Int) -> Bool {
            defer { bits |= 1 << bit }
            return bits & (1 << bit) == 0
        }

        func all(_ required: Int...) -> Bool { required.allSatisfy { bits & (1 << $0) != 0 } }
    }

    /// Reads `[ element, … ]`; nil when an element cannot be read.
    mutating func elements<Element>(_ element: (inout JSONByteReader) -> Element?) -> [Element]? {
        skipSpace()
        guard take(UInt8(ascii: "[")) else { return nil }
        var elements: [Element] = []
        skipSpace()
        if take(UInt8(ascii: "]")) { return elements }
        while true {
            skipSpace()
            guard let value = element(&self) else { return nil }
            elements.append(value)
            skipSpace()
            if take(UInt8(ascii: "]")) { return elements }
            guard take(UInt8(ascii: ",")) else { return nil }
        }
    }

    mutating func optionalNumber(_ value: inout Double?) -> Bool {
        if null() { return true }
        value = number()
        return value != nil
    }

    /// Reads `{ "key": value, … }`, handing each key to `member`, which reads the value and says whether it could.
    mutating func members(_ member: (inout JSONByteReader, String) -> Bool) -> Bool {
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
    mutating func string() -> String? {
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

    mutating func null() -> Bool {
        guard index + 4 <= bytes.count, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
            bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l")
        else { return false }
        index += 4
        return true
    }

    /// A JSON number without an exponent: `-?(0|[1-9][0-9]*)(\.[0-9]+)?`.
    public mutating func number() -> Double? {
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

    /// A whole number that fits in 64 bits, without a fraction or an exponent.
    public mutating func integer() -> Int64? {
        let negative = take(UInt8(ascii: "-"))
        var value: Int64 = 0
        var digits = 0
        while index < bytes.count, let digit = Self.digit(bytes[index]) {
            if digits == 1, value == 0 { return nil }  // a leading zero
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowed) = times.addingReportingOverflow(negative ? -Int64(digit) : Int64(digit))
            guard !overflow, !overflowed else { return nil }
            value = sum
            digits += 1
            index += 1
        }
        guard digits > 0, index == bytes.count || !Self.continuesNumber(bytes[index]) else { return nil }
        return value
    }

    private static func continuesNumber(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e")
    }

    /// The bytes of the next value, whatever it is, for a decoder to read (and check); only strings are followed
    /// closely, so that brackets inside them do not count.
    mutating func rawValue() -> UnsafeRawBufferPointer? {
        skipSpace()
        let start = index
        var depth = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                guard skipString() else { return nil }
                if depth == 0 { return UnsafeRawBufferPointer(rebasing: bytes[start..<index]) }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return index > start ? UnsafeRawBufferPointer(rebasing: bytes[start..<index]) : nil }
                depth -= 1
                if depth == 0 {
                    index += 1
                    return UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                }
            case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
                if depth == 0 { return index > start ? UnsafeRawBufferPointer(rebasing: bytes[start..<index]) : nil }
            default:
                break
            }
            index += 1
        }
        return depth == 0 && index > start ? UnsafeRawBufferPointer(rebasing: bytes[start..<index]) : nil
    }

    /// Past a string, escapes and all.
    private mutating func skipString() -> Bool {
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""):
                index += 1
                return true
            default: index += 1
            }
        }
        return false
    }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}
