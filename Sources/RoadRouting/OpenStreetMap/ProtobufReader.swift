/// A bounds-checked reader of the protobuf wire format over a byte range, enough for the OSM PBF messages.
/// Every read past the end throws instead of trapping, so a corrupted file gives an error, never a crash.
struct ProtobufReader {
    enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int

    init(bytes: [UInt8], range: Range<Int>? = nil) {
        self.bytes = bytes
        self.position = range?.lowerBound ?? 0
        self.end = range?.upperBound ?? bytes.count
    }

    var isAtEnd: Bool { position >= end }

    /// The next field number and wire type; nil at the end of the message.
    mutating func nextField() throws(MapImportError) -> (number: Int, type: WireType)? {
        guard !isAtEnd else { return nil }
        let key = try readVarint()
        guard let type = WireType(rawValue: UInt8(key & 7)) else {
            throw .corrupt("unsupported protobuf wire type \(key & 7)")
        }
        let number = Int(key >> 3)
        guard number > 0 else { throw .corrupt("protobuf field number 0") }
        return (number, type)
    }

    mutating func readVarint() throws(MapImportError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw .corrupt("truncated varint") }
            let byte = bytes[position]
            position += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            guard shift < 64 else { throw .corrupt("varint longer than 10 bytes") }
        }
    }

    mutating func readSignedVarint() throws(MapImportError) -> Int64 {
        let raw = try readVarint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func readInt64() throws(MapImportError) -> Int64 { Int64(bitPattern: try readVarint()) }

    mutating func readInt32() throws(MapImportError) -> Int32 { Int32(truncatingIfNeeded: try readVarint()) }

    /// The byte range of a length-delimited field (a sub-message, string or packed array).
    mutating func readLengthDelimited() throws(MapImportError) -> Range<Int> {
        let length = try readVarint()
        guard length <= UInt64(end - position) else { throw .corrupt("field length \(length) runs past the end") }
        let range = position..<(position + Int(length))
        position = range.upperBound
        return range
    }

    mutating func readString() throws(MapImportError) -> String {
        let range = try readLengthDelimited()
        return String(decoding: bytes[range], as: UTF8.self)
    }

    mutating func skip(_ type: WireType) throws(MapImportError) {
        switch type {
        case .varint: _ = try readVarint()
        case .lengthDelimited: _ = try readLengthDelimited()
        case .fixed64: try advance(by: 8)
        case .fixed32: try advance(by: 4)
        }
    }

    private mutating func advance(by count: Int) throws(MapImportError) {
        guard end - position >= count else { throw .corrupt("truncated fixed-width field") }
        position += count
    }

    func subreader(_ range: Range<Int>) -> ProtobufReader { ProtobufReader(bytes: bytes, range: range) }

    /// Reads a packed repeated varint field (or a single unpacked value) and appends it.
    mutating func readPackedVarints(
        _ type: WireType, into values: inout [UInt64]
    ) throws(MapImportError) {
        if type == .varint {
            values.append(try readVarint())
            return
        }
        guard type == .lengthDelimited else { throw .corrupt("packed field with wire type \(type)") }
        var packed = subreader(try readLengthDelimited())
        while !packed.isAtEnd { values.append(try packed.readVarint()) }
    }

    /// Reads a packed repeated sint64 field.
    mutating func readPackedSignedVarints(
        _ type: WireType, into values: inout [Int64]
    ) throws(MapImportError) {
        if type == .varint {
            values.append(try readSignedVarint())
            return
        }
        guard type == .lengthDelimited else { throw .corrupt("packed field with wire type \(type)") }
        var packed = subreader(try readLengthDelimited())
        while !packed.isAtEnd { values.append(try packed.readSignedVarint()) }
    }
}
