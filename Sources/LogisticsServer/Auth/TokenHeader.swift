import Foundation

/// A token's JOSE header, read once and strictly: the allow-list and the key lookup must see the very `alg` and
/// `kid` the signature check will use. Two JSON parsers disagree on a repeated key (one keeps the first copy, the
/// other the last), so a header that repeats any key, or spells a key with escapes, is refused outright.
struct TokenHeader: Equatable {
    var algorithm: String
    var keyID: String?

    init?(base64URL segment: Substring) {
        guard segment.utf8.count <= 2048, let data = Self.decode(segment) else { return nil }
        var algorithm: String?
        var keyID: String?
        var seen: Set<String> = []
        let complete = data.withUnsafeBytes { bytes -> Bool in
            var reader = JSONByteReader(bytes)
            let read = reader.members { reader, key in
                guard seen.insert(key).inserted else { return false }
                switch key {
                case "alg":
                    algorithm = reader.string()
                    return algorithm != nil
                case "kid":
                    keyID = reader.string()
                    return keyID != nil
                default:
                    return reader.rawValue() != nil
                }
            }
            return read && reader.isAtEnd()
        }
        guard complete, let algorithm else { return nil }
        self.algorithm = algorithm
        self.keyID = keyID
    }

    private static func decode(_ segment: Substring) -> Data? {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
