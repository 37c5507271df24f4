import CompressNIO
import Foundation
import NIOCore

/// Decodes an OpenStreetMap PBF file (https://wiki.openstreetmap.org/wiki/PBF_Format): a sequence of
/// length-prefixed `BlobHeader` + `Blob` pairs whose blobs are raw or zlib-compressed `PrimitiveBlock`s.
public struct PBFReader: Sendable {
    /// The format caps a blob at 32 MiB; anything larger is a corrupt length, not a real block.
    static let maximumBlobSize = 32 * 1024 * 1024
    static let supportedFeatures: Set<String> = ["OsmSchema-V0.6", "DenseNodes", "HistoricalInformation"]

    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    public init(path: String) throws(MapImportError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable("\(path) does not exist or is not readable")
        }
        self.init(bytes: [UInt8](data))
    }

    /// Decodes every element in file order. `progress` gets the fraction of the file read so far.
    public func read<Visitor: OSMElementVisitor>(
        into visitor: inout Visitor, progress: (Double) -> Void = { _ in }
    ) throws(MapImportError) {
        guard !bytes.isEmpty else { throw .empty("the file is empty") }
        var position = 0
        var sawHeader = false
        var lastReported = -1
        while position < bytes.count {
            let (type, blobRange) = try readBlobHeader(at: &position)
            let block = try inflate(blobRange)
            switch type {
            case "OSMHeader":
                try checkHeader(block)
                sawHeader = true
            case "OSMData":
                guard sawHeader else { throw .corrupt("data block before the OSMHeader block") }
                var decoder = PrimitiveBlockDecoder(bytes: block)
                try decoder.decode(into: &visitor)
            default:
                break  // Unknown blob types are skipped, as the format allows.
            }
            let percent = position * 100 / bytes.count
            if percent != lastReported {
                lastReported = percent
                progress(Double(position) / Double(bytes.count))
            }
        }
        guard sawHeader else { throw .corrupt("no OSMHeader block") }
    }

    private func readBlobHeader(at position: inout Int) throws(MapImportError) -> (String, Range<Int>) {
        guard bytes.count - position >= 4 else { throw .corrupt("truncated blob length at byte \(position)") }
        let headerLength = bytes[position..<(position + 4)].reduce(0) { $0 << 8 | Int($1) }
        position += 4
        guard headerLength > 0, headerLength <= 64 * 1024, bytes.count - position >= headerLength else {
            throw .corrupt("blob header of \(headerLength) bytes at byte \(position - 4)")
        }
        var header = ProtobufReader(bytes: bytes, range: position..<(position + headerLength))
        position += headerLength
        var type: String?
        var dataSize: Int?
        while let field = try header.nextField() {
            switch (field.number, field.type) {
            case (1, .lengthDelimited): type = try header.readString()
            case (3, .varint): dataSize = Int(try header.readInt32())
            default: try header.skip(field.type)
            }
        }
        guard let type, let dataSize, dataSize >= 0, dataSize <= Self.maximumBlobSize else {
            throw .corrupt("blob header without a type or a valid size")
        }
        guard bytes.count - position >= dataSize else { throw .corrupt("the file ends inside a \(type) blob") }
        let range = position..<(position + dataSize)
        position += dataSize
        return (type, range)
    }

    /// The uncompressed bytes of a `Blob`.
    private func inflate(_ range: Range<Int>) throws(MapImportError) -> [UInt8] {
        var blob = ProtobufReader(bytes: bytes, range: range)
        var rawSize: Int?
        var raw: Range<Int>?
        var zlib: Range<Int>?
        while let field = try blob.nextField() {
            switch (field.number, field.type) {
            case (1, .lengthDelimited): raw = try blob.readLengthDelimited()
            case (2, .varint): rawSize = Int(try blob.readInt32())
            case (3, .lengthDelimited): zlib = try blob.readLengthDelimited()
            case (4, _), (5, _), (6, _), (7, _):
                throw .unsupported("blob compression other than zlib (field \(field.number))")
            default: try blob.skip(field.type)
            }
        }
        if let raw { return Array(bytes[raw]) }
        guard let zlib, let rawSize, rawSize >= 0, rawSize <= Self.maximumBlobSize else {
            throw .corrupt("blob without data or with an invalid raw size")
        }
        var compressed = ByteBuffer(bytes: bytes[zlib])
        var output = ByteBuffer()
        output.reserveCapacity(rawSize)
        do {
            try compressed.decompress(to: &output, with: .zlib())
        } catch {
            throw .corrupt("a zlib block does not inflate (\(error))")
        }
        guard output.readableBytes == rawSize else {
            throw .corrupt("a zlib block inflated to \(output.readableBytes) bytes, expected \(rawSize)")
        }
        return output.readBytes(length: output.readableBytes) ?? []
    }

    private func checkHeader(_ block: [UInt8]) throws(MapImportError) {
        var header = ProtobufReader(bytes: block)
        while let field = try header.nextField() {
            if field.number == 4, field.type == .lengthDelimited {
                let feature = try header.readString()
                guard Self.supportedFeatures.contains(feature) else {
                    throw .unsupported("required feature \(feature)")
                }
            } else {
                try header.skip(field.type)
            }
        }
    }
}
