/// Removes what a photo says beyond its pixels before it is stored: a phone's camera writes where it was (EXIF GPS,
/// often the customer's door to a few metres), which phone took it, and when, and the photo is later shown to
/// customers, dispatchers and whoever a proof is forwarded to. JPEG loses its EXIF, XMP and other application
/// segments and comments (the colour profile and Adobe's colour transform stay); PNG its text, EXIF and time chunks;
/// WebP its EXIF and XMP chunks; HEIC keeps its structure but its EXIF and XMP items are overwritten with zeros.
/// Bytes that do not parse as their format give nil: such a "photo" is refused.
public enum PhotoMetadata {
    public static func strip(_ bytes: [UInt8], format: PhotoFormat) -> [UInt8]? {
        switch format {
        case .jpeg: jpeg(bytes)
        case .png: png(bytes)
        case .webp: webp(bytes)
        case .heic: heic(bytes)
        }
    }

    // MARK: JPEG

    private static func jpeg(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var out: [UInt8] = [0xFF, 0xD8]
        out.reserveCapacity(bytes.count)
        var index = 2
        while index < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            while index < bytes.count, bytes[index] == 0xFF { index += 1 }  // fill bytes
            guard index < bytes.count else { return nil }
            let marker = bytes[index]
            index += 1
            if marker == 0xD9 {  // end of image without a scan: nothing to show
                return nil
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                out += [0xFF, marker]
                continue
            }
            guard index + 2 <= bytes.count else { return nil }
            let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            guard length >= 2, index + length <= bytes.count else { return nil }
            let segment = bytes[index..<(index + length)]
            if keeps(marker, segment) {
                out += [0xFF, marker]
                out += segment
            }
            index += length
            if marker == 0xDA {  // start of scan: the compressed image and what follows go as they are
                out += bytes[index...]
                return out
            }
        }
        return nil
    }

    /// Application segments other than JFIF, the ICC colour profile and Adobe's colour transform, and comments,
    /// are dropped: EXIF and XMP live there.
    private static func keeps(_ marker: UInt8, _ segment: ArraySlice<UInt8>) -> Bool {
        if marker == 0xFE { return false }
        guard (0xE1...0xEF).contains(marker) else { return true }
        let payload = segment.dropFirst(2)
        if marker == 0xE2 { return payload.starts(with: Array("ICC_PROFILE\u{0}".utf8)) }
        if marker == 0xEE { return payload.starts(with: Array("Adobe".utf8)) }
        return false
    }

    // MARK: PNG

    private static let pngDropped: Set<String> = ["tEXt", "zTXt", "iTXt", "eXIf", "tIME"]

    private static func png(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 8 else { return nil }
        var out = Array(bytes[0..<8])
        var index = 8
        while index + 12 <= bytes.count {
            let length = Int(readUInt32(bytes, index, bigEndian: true))
            guard length <= bytes.count - index - 12 else { return nil }
            let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
            let end = index + 12 + length
            if !pngDropped.contains(type) { out += bytes[index..<end] }
            index = end
            if type == "IEND" { return out }
        }
        return nil
    }

    // MARK: WebP

    private static func webp(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 12 else { return nil }
        var out = Array(bytes[0..<12])
        var index = 12
        var sawImage = false
        while index + 8 <= bytes.count {
            let fourCC = String(decoding: bytes[index..<(index + 4)], as: UTF8.self)
            let size = Int(readUInt32(bytes, index + 4, bigEndian: false))
            let padded = size + (size & 1)
            guard size <= bytes.count - index - 8 else { return nil }
            let end = min(bytes.count, index + 8 + padded)
            switch fourCC {
            case "EXIF", "XMP ":
                break
            case "VP8X":
                var chunk = Array(bytes[index..<end])
                // The canvas flags that announce EXIF (0x08) and XMP (0x04) go with the chunks.
                if chunk.count > 8 { chunk[8] &= ~UInt8(0x0C) }
                out += chunk
            default:
                if fourCC == "VP8 " || fourCC == "VP8L" || fourCC == "ANIM" { sawImage = true }
                out += bytes[index..<end]
            }
            index = end
        }
        guard sawImage else { return nil }
        let riffSize = UInt32(out.count - 8)
        for shift in 0..<4 { out[4 + shift] = UInt8(truncatingIfNeeded: riffSize >> (8 * shift)) }
        return out
    }

    // MARK: HEIC

    /// The `meta` box names its items (`iinf`) and says where their bytes are (`iloc`); the EXIF item and XMP
    /// (`mime` items of `application/rdf+xml`) are overwritten in place, so no offset in the file changes.
    private static func heic(_ bytes: [UInt8]) -> [UInt8]? {
        guard let meta = boxes(bytes, 0..<bytes.count).first(where: { $0.type == "meta" }) else { return nil }
        // A full box: version and flags before the children.
        let children = boxes(bytes, (meta.content.lowerBound + 4)..<meta.content.upperBound)
        guard let info = children.first(where: { $0.type == "iinf" }),
            let locations = children.first(where: { $0.type == "iloc" })
        else { return nil }
        let idat = children.first { $0.type == "idat" }
        guard let secret = metadataItems(bytes, info), let extents = itemExtents(bytes, locations) else { return nil }
        var out = bytes
        for item in secret {
            for extent in extents[item] ?? [] {
                let base = extent.inItemData ? (idat?.content.lowerBound ?? -1) : 0
                guard base >= 0 else { return nil }
                let start = base + extent.offset
                guard start >= 0, extent.length >= 0, start + extent.length <= out.count else { return nil }
                for position in start..<(start + extent.length) { out[position] = 0 }
            }
        }
        return out
    }

    private struct Box {
        var type: String
        var content: Range<Int>
    }

    private static func boxes(_ bytes: [UInt8], _ range: Range<Int>) -> [Box] {
        var found: [Box] = []
        var index = range.lowerBound
        while index + 8 <= range.upperBound {
            var size = Int(readUInt32(bytes, index, bigEndian: true))
            let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
            var header = 8
            if size == 1 {
                guard index + 16 <= range.upperBound else { break }
                size = Int(truncatingIfNeeded: readUInt64(bytes, index + 8))
                header = 16
            } else if size == 0 {
                size = range.upperBound - index
            }
            guard size >= header, size <= range.upperBound - index else { break }
            found.append(Box(type: type, content: (index + header)..<(index + size)))
            index += size
        }
        return found
    }

    /// The ids of the EXIF and XMP items, from `iinf`'s `infe` entries (versions 2 and 3).
    private static func metadataItems(_ bytes: [UInt8], _ info: Box) -> [UInt32]? {
        guard info.content.count >= 6 else { return nil }
        let version = bytes[info.content.lowerBound]
        let entriesStart = info.content.lowerBound + 4 + (version == 0 ? 2 : 4)
        guard entriesStart <= info.content.upperBound else { return nil }
        var ids: [UInt32] = []
        for entry in boxes(bytes, entriesStart..<info.content.upperBound) where entry.type == "infe" {
            let start = entry.content.lowerBound
            guard entry.content.count >= 4 else { return nil }
            let entryVersion = bytes[start]
            guard entryVersion >= 2 else { continue }
            let idSize = entryVersion == 2 ? 2 : 4
            var cursor = start + 4
            guard cursor + idSize + 2 + 4 <= entry.content.upperBound else { return nil }
            let id = idSize == 2 ? UInt32(readUInt16(bytes, cursor)) : readUInt32(bytes, cursor, bigEndian: true)
            cursor += idSize + 2
            let type = String(decoding: bytes[cursor..<(cursor + 4)], as: UTF8.self)
            cursor += 4
            if type == "Exif" {
                ids.append(id)
            } else if type == "mime" {
                // item_name, then content_type, each ending with a zero byte.
                let rest = bytes[cursor..<entry.content.upperBound].split(
                    separator: 0, omittingEmptySubsequences: false)
                if rest.count >= 2, String(decoding: rest[1], as: UTF8.self).hasPrefix("application/rdf+xml") {
                    ids.append(id)
                }
            }
        }
        return ids
    }

    private struct Extent {
        var offset: Int
        var length: Int
        var inItemData: Bool
    }

    /// Where each item's bytes are, from `iloc` (versions 0 to 2).
    private static func itemExtents(_ bytes: [UInt8], _ locations: Box) -> [UInt32: [Extent]]? {
        var cursor = locations.content.lowerBound
        let end = locations.content.upperBound
        guard cursor + 6 <= end else { return nil }
        let version = bytes[cursor]
        cursor += 4
        let offsetSize = Int(bytes[cursor] >> 4)
        let lengthSize = Int(bytes[cursor] & 0x0F)
        let baseOffsetSize = Int(bytes[cursor + 1] >> 4)
        let indexSize = version >= 1 ? Int(bytes[cursor + 1] & 0x0F) : 0
        cursor += 2
        func read(_ size: Int) -> Int? {
            guard [0, 4, 8].contains(size), cursor + size <= end else { return nil }
            defer { cursor += size }
            switch size {
            case 4: return Int(readUInt32(bytes, cursor, bigEndian: true))
            case 8: return Int(truncatingIfNeeded: readUInt64(bytes, cursor))
            default: return 0
            }
        }
        func read16() -> Int? {
            guard cursor + 2 <= end else { return nil }
            defer { cursor += 2 }
            return Int(readUInt16(bytes, cursor))
        }
        guard let count = version < 2 ? read16() : read(4) else { return nil }
        var extents: [UInt32: [Extent]] = [:]
        for _ in 0..<count {
            guard let id = version < 2 ? read16() : read(4) else { return nil }
            var method = 0
            if version >= 1 {
                guard let value = read16() else { return nil }
                method = value & 0x0F
            }
            guard read16() != nil, let base = read(baseOffsetSize), let extentCount = read16() else { return nil }
            for _ in 0..<extentCount {
                if indexSize > 0 { guard read(indexSize) != nil else { return nil } }
                guard let offset = read(offsetSize), let length = read(lengthSize) else { return nil }
                // Construction method 2 refers to other items, whose own extents are overwritten anyway.
                guard method < 2 else { continue }
                extents[UInt32(id), default: []].append(
                    Extent(offset: base + offset, length: length, inItemData: method == 1))
            }
        }
        return extents
    }

    // MARK: Bytes

    private static func readUInt16(_ bytes: [UInt8], _ index: Int) -> UInt16 {
        UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
    }

    private static func readUInt32(_ bytes: [UInt8], _ index: Int, bigEndian: Bool) -> UInt32 {
        let parts = (0..<4).map { UInt32(bytes[index + $0]) }
        return bigEndian
            ? parts[0] << 24 | parts[1] << 16 | parts[2] << 8 | parts[3]
            : parts[3] << 24 | parts[2] << 16 | parts[1] << 8 | parts[0]
    }

    private static func readUInt64(_ bytes: [UInt8], _ index: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[index + $1]) }
    }
}
