/// Image formats accepted as proof of delivery, recognised from their bytes, never from a name or a
/// declared content type.
public enum PhotoFormat: String, Sendable, CaseIterable {
    case jpeg
    case png
    case heic
    case webp

    public var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .heic: "image/heic"
        case .webp: "image/webp"
        }
    }

    public static func sniff(_ bytes: some Collection<UInt8>) -> PhotoFormat? {
        let head = Array(bytes.prefix(32))
        guard head.count >= 12 else { return nil }
        if head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF { return .jpeg }
        // PNG signature, then the IHDR chunk that must come first.
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return head.count >= 16 && Array(head[12..<16]) == Array("IHDR".utf8) ? .png : nil
        }
        if Array(head[0..<4]) == Array("RIFF".utf8) && Array(head[8..<12]) == Array("WEBP".utf8) { return .webp }
        if Array(head[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains(brand) { return .heic }
        }
        return nil
    }
}
