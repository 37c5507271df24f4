/// Just enough protobuf writing to build small OSM PBF files in tests: raw (uncompressed) blobs, so a mutation of a
/// block reaches the block decoder instead of stopping at a zlib checksum.
struct ProtobufWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func integer(_ field: Int, _ value: UInt64) {
        varint(UInt64(field << 3))
        varint(value)
    }

    mutating func message(_ field: Int, _ body: [UInt8]) {
        varint(UInt64(field << 3 | 2))
        varint(UInt64(body.count))
        bytes += body
    }

    mutating func string(_ field: Int, _ text: String) { message(field, Array(text.utf8)) }

    mutating func packed(_ field: Int, _ values: [UInt64]) {
        var packed = ProtobufWriter()
        for value in values { packed.varint(value) }
        message(field, packed.bytes)
    }

    mutating func packedSigned(_ field: Int, _ values: [Int64]) {
        packed(field, values.map { UInt64(bitPattern: ($0 << 1) ^ ($0 >> 63)) })
    }

    static func build(_ body: (inout ProtobufWriter) -> Void) -> [UInt8] {
        var writer = ProtobufWriter()
        body(&writer)
        return writer.bytes
    }
}

/// A small PBF file: a header block, then data blocks, each stored raw.
enum PBFWriter {
    static func file(dataBlocks: [[UInt8]]) -> [UInt8] {
        let header = ProtobufWriter.build {
            $0.string(4, "OsmSchema-V0.6")
            $0.string(4, "DenseNodes")
        }
        return ([("OSMHeader", header)] + dataBlocks.map { ("OSMData", $0) }).flatMap { blob($0.0, $0.1) }
    }

    static func blob(_ type: String, _ block: [UInt8]) -> [UInt8] {
        let blob = ProtobufWriter.build {
            $0.message(1, block)
            $0.integer(2, UInt64(block.count))
        }
        let header = ProtobufWriter.build {
            $0.string(1, type)
            $0.integer(3, UInt64(blob.count))
        }
        let length = UInt32(header.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            + header + blob
    }

    /// A 4×4 grid of streets near the Monaco casino (dense nodes), a named two-way street per row, a oneway per
    /// column, and a no-left-turn restriction, in one primitive block with the default granularity of 100 nanodegrees.
    static var grid: [UInt8] {
        let strings = [
            "", "highway", "residential", "name", "Rue", "oneway", "yes", "type", "restriction",
            "no_left_turn", "from", "via", "to",
        ]
        func index(_ text: String) -> UInt64 { UInt64(strings.firstIndex(of: text)!) }
        var ids: [Int64] = []
        var lats: [Int64] = []
        var lons: [Int64] = []
        for row in 0..<4 {
            for column in 0..<4 {
                ids.append(1)
                lats.append(row == 0 && column == 0 ? 437_300_000 : (column == 0 ? 10_000 : 0))
                lons.append(column == 0 ? (row == 0 ? 74_200_000 : -30_000) : 10_000)
            }
        }
        let dense = ProtobufWriter.build {
            $0.packedSigned(1, ids)
            $0.packedSigned(8, lats)
            $0.packedSigned(9, lons)
        }
        var ways: [[UInt8]] = []
        for row in 0..<4 {
            ways.append(
                ProtobufWriter.build {
                    $0.integer(1, UInt64(100 + row))
                    $0.packed(2, [index("highway"), index("name")])
                    $0.packed(3, [index("residential"), index("Rue")])
                    $0.packedSigned(8, [Int64(row * 4 + 1), 1, 1, 1])
                })
        }
        for column in 0..<4 {
            ways.append(
                ProtobufWriter.build {
                    $0.integer(1, UInt64(200 + column))
                    $0.packed(2, [index("highway"), index("oneway")])
                    $0.packed(3, [index("residential"), index("yes")])
                    $0.packedSigned(8, [Int64(column + 1), 4, 4, 4])
                })
        }
        let restriction = ProtobufWriter.build {
            $0.integer(1, 300)
            $0.packed(2, [index("type"), index("restriction")])
            $0.packed(3, [index("restriction"), index("no_left_turn")])
            $0.packed(8, [index("from"), index("via"), index("to")])
            $0.packedSigned(9, [101, -95, 195])
            $0.packed(10, [1, 0, 1])
        }
        let group = ProtobufWriter.build { group in
            group.message(2, dense)
            for way in ways { group.message(3, way) }
            group.message(4, restriction)
        }
        return ProtobufWriter.build { block in
            block.message(1, ProtobufWriter.build { table in strings.forEach { table.string(1, $0) } })
            block.message(2, group)
        }
    }
}
