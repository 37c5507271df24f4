import Foundation

/// U+0000 in a JSON string (sent as `\u0000`) becomes U+FFFD, the replacement character. Neither store can keep a
/// NUL: SQLite hands text back only up to it (a name came back as ""), PostgreSQL refuses it in `text` columns. The
/// OpenAPI schemas allow it, so refusing it would refuse valid requests; replacing it keeps the rest of the text
/// and marks where the character was. Done on the bytes, before decoding: only bodies with the escape are copied.
enum NulCharacters {
    private static let escape = Data(#"\u0000"#.utf8)

    static func replaced(in data: Data) -> Data {
        guard data.range(of: escape) != nil else { return data }
        let backslash = UInt8(ascii: "\\")
        var out = Data(capacity: data.count)
        let bytes = [UInt8](data)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == backslash, index + 1 < bytes.count else {
                out.append(byte)
                index += 1
                continue
            }
            // An escape: `\u0000` is the NUL; any other pair (`\\` included) is copied whole, so an escaped
            // backslash followed by "u0000" stays text.
            if index + 5 < bytes.count, bytes[index + 1] == UInt8(ascii: "u"),
                bytes[(index + 2)...(index + 5)].allSatisfy({ $0 == UInt8(ascii: "0") })
            {
                out.append(contentsOf: Array(#"\ufffd"#.utf8))
                index += 6
            } else {
                out.append(contentsOf: bytes[index...(index + 1)])
                index += 2
            }
        }
        return out
    }
}
