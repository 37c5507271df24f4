/// JSON written field by field, for the few large answers whose encoding dominated their request: a route with
/// steps spent more time in `JSONEncoder` (generic containers, a boxed value per field) than in finding the route.
/// Writers emit keys in sorted order and numbers as `JSONEncoder` does, so the bytes match `APIJSON.encoder`'s.
struct JSONOutput {
    private(set) var bytes: [UInt8] = []
    /// Whether the container just opened has no member yet, so the next one needs no comma.
    private var first = true

    init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    /// An object as an array element.
    mutating func object(_ body: (inout JSONOutput) -> Void) {
        separate()
        container(UInt8(ascii: "{"), UInt8(ascii: "}"), body)
    }

    mutating func object(_ key: StaticString, _ body: (inout JSONOutput) -> Void) {
        name(key)
        container(UInt8(ascii: "{"), UInt8(ascii: "}"), body)
    }

    mutating func array<Element>(
        _ key: StaticString, _ elements: [Element], _ body: (inout JSONOutput, Element) -> Void
    ) {
        name(key)
        container(UInt8(ascii: "["), UInt8(ascii: "]")) { output in
            for element in elements { body(&output, element) }
        }
    }

    private mutating func container(_ open: UInt8, _ close: UInt8, _ body: (inout JSONOutput) -> Void) {
        bytes.append(open)
        first = true
        body(&self)
        bytes.append(close)
        first = false
    }

    mutating func field(_ key: StaticString, _ value: Double) {
        name(key)
        var text = value.description
        // JSONEncoder writes integral doubles without ".0".
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    mutating func field(_ key: StaticString, _ value: Double?) {
        if let value { field(key, value) }
    }

    mutating func field(_ key: StaticString, _ value: Int) {
        name(key)
        bytes.append(contentsOf: value.description.utf8)
    }

    mutating func field(_ key: StaticString, _ value: Int?) {
        if let value { field(key, value) }
    }

    mutating func field(_ key: StaticString, _ value: String) {
        name(key)
        string(value)
    }

    mutating func field(_ key: StaticString, _ value: String?) {
        if let value { field(key, value) }
    }

    /// An array element that is a string.
    mutating func element(_ value: String) {
        separate()
        string(value)
    }

    private mutating func separate() {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
    }

    private mutating func name(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    private mutating func string(_ value: String) { Self.append(value, to: &bytes) }

    /// RFC 8259 string escaping as `JSONEncoder` does it: quotes, backslashes and control characters (the usual ones
    /// by letter); everything else as UTF-8.
    static func append(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        // Runs that need no escaping are copied whole: byte by byte, names and polylines took a twentieth of a
        // route request.
        text.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                appendEscaped(byte, to: &out)
                runStart = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
        case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            out.append(contentsOf: Array("\\u00".utf8))
            out.append(contentsOf: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}
