import Foundation
import LogisticsCore
import Testing

/// Photos lose what they say beyond their pixels (where, with which phone, when) and keep what draws them.
@Suite("Photo metadata")
struct PhotoMetadataTests {
    static let secret = Array("GPS 43.7347N 7.4240E Pixel 8 Pro".utf8)

    static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    @Test("JPEG: EXIF, XMP, other application segments and comments go; JFIF, ICC and the scan stay byte for byte")
    func jpeg() throws {
        let jfif = Self.segment(0xE0, Array("JFIF\u{0}".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
        let exif = Self.segment(0xE1, Array("Exif\u{0}\u{0}".utf8) + Self.secret)
        let xmp = Self.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\u{0}".utf8) + Self.secret)
        let icc = Self.segment(0xE2, Array("ICC_PROFILE\u{0}".utf8) + [1, 1, 9, 9])
        let maker = Self.segment(0xEC, Self.secret)
        let comment = Self.segment(0xFE, Self.secret)
        let quantisation = Self.segment(0xDB, [0] + Array(repeating: 1, count: 64))
        let scan = Self.segment(0xDA, [1, 1, 0, 0, 63, 0]) + [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD9]
        let photo = [0xFF, 0xD8] + jfif + exif + xmp + icc + maker + comment + quantisation + scan
        let stripped = try #require(PhotoMetadata.strip(photo, format: .jpeg))
        #expect(!Self.contains(stripped, Self.secret))
        #expect(stripped == [0xFF, 0xD8] + jfif + icc + quantisation + scan)
        #expect(PhotoMetadata.strip(Array(photo.prefix(30)), format: .jpeg) == nil, "cut before the scan")
        #expect(PhotoMetadata.strip([0xFF, 0xD8, 0xFF, 0xD9], format: .jpeg) == nil, "no image at all")
        #expect(PhotoMetadata.strip([0xFF, 0xD8, 0x00, 0x01, 0x02], format: .jpeg) == nil)
    }

    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let length = UInt32(data.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            + Array(type.utf8) + data + [0, 0, 0, 0]
    }

    @Test("PNG: text, EXIF and time chunks go; the image chunks stay")
    func png() throws {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let header = Self.pngChunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])
        let data = Self.pngChunk("IDAT", [1, 2, 3])
        let end = Self.pngChunk("IEND", [])
        let photo =
            signature + header + Self.pngChunk("tEXt", Self.secret) + Self.pngChunk("eXIf", Self.secret)
            + Self.pngChunk("iTXt", Self.secret) + Self.pngChunk("tIME", [7, 234, 12, 4, 1, 2, 3]) + data + end
        let stripped = try #require(PhotoMetadata.strip(photo, format: .png))
        #expect(stripped == signature + header + data + end)
        #expect(PhotoMetadata.strip(signature + header + [0, 0, 9, 9], format: .png) == nil)
    }

    static func riff(_ fourCC: String, _ data: [UInt8]) -> [UInt8] {
        let size = UInt32(data.count)
        let padding: [UInt8] = data.count % 2 == 1 ? [0] : []
        return Array(fourCC.utf8) + [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), 0]
            + data + padding
    }

    @Test("WebP: EXIF and XMP chunks go, with their flags; the RIFF size follows")
    func webp() throws {
        let extended = Self.riff("VP8X", [0x0C | 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        let image = Self.riff("VP8 ", [9, 8, 7, 6, 5])
        let body =
            Array("WEBP".utf8) + extended + image + Self.riff("EXIF", Self.secret) + Self.riff("XMP ", Self.secret)
        let size = UInt32(body.count)
        let photo = Array("RIFF".utf8) + [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), 0, 0] + body
        let stripped = try #require(PhotoMetadata.strip(photo, format: .webp))
        #expect(!Self.contains(stripped, Self.secret))
        #expect(stripped.count == 12 + extended.count + image.count)
        #expect(stripped[20] == 0x10, "the alpha flag stays, EXIF and XMP flags go")
        #expect(Int(stripped[4]) | Int(stripped[5]) << 8 == stripped.count - 8)
    }

    static func box(_ type: String, _ content: [UInt8]) -> [UInt8] {
        let size = UInt32(content.count + 8)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + Array(type.utf8) + content
    }

    static func be(_ value: Int, _ bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    @Test("HEIC: the EXIF and XMP items are overwritten where iloc says they are; the image item is untouched")
    func heic() throws {
        let image: [UInt8] = [0xAA, 0xBB, 0xCC, 0xDD]
        let exif = [0, 0, 0, 6] + Array("Exif\u{0}\u{0}".utf8) + Self.secret
        let xmp = Array("<x:xmpmeta>".utf8) + Self.secret
        func infe(_ id: Int, _ type: String, _ extra: [UInt8] = []) -> [UInt8] {
            Self.box("infe", [2, 0, 0, 0] + Self.be(id, 2) + [0, 0] + Array(type.utf8) + [0] + extra)
        }
        let info = Self.box(
            "iinf",
            [0, 0, 0, 0] + Self.be(3, 2) + infe(1, "hvc1") + infe(2, "Exif")
                + infe(3, "mime", Array("application/rdf+xml".utf8) + [0]))
        func location(offsetOf start: Int) -> [UInt8] {
            var items: [UInt8] = []
            for (id, offset, length) in [
                (1, start, image.count), (2, start + image.count, exif.count),
                (3, start + image.count + exif.count, xmp.count),
            ] {
                items +=
                    Self.be(id, 2) + Self.be(0, 2) + Self.be(0, 2) + Self.be(1, 2) + Self.be(offset, 4)
                    + Self.be(length, 4)
            }
            return Self.box("iloc", [1, 0, 0, 0, 0x44, 0x00] + Self.be(3, 2) + items)
        }
        let type = Self.box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        // The iloc box has the same size whatever the offsets, so lay the file out once to learn where mdat is.
        let metaSize = 8 + 4 + info.count + location(offsetOf: 0).count
        let dataStart = type.count + metaSize + 8
        let meta = Self.box("meta", [0, 0, 0, 0] + info + location(offsetOf: dataStart))
        let photo = type + meta + Self.box("mdat", image + exif + xmp)
        #expect(meta.count == metaSize)
        let stripped = try #require(PhotoMetadata.strip(photo, format: .heic))
        #expect(stripped.count == photo.count)
        #expect(!Self.contains(stripped, Self.secret))
        #expect(Array(stripped[dataStart..<(dataStart + image.count)]) == image)
        #expect(Array(stripped[0..<dataStart]) == Array(photo[0..<dataStart]))
        #expect(PhotoMetadata.strip(type + Self.box("mdat", image), format: .heic) == nil, "no meta box")
    }
}
