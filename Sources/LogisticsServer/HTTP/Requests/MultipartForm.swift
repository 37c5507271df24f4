import Foundation
import LogisticsCore

/// A `multipart/form-data` body already held in memory (bounded by the upload limit before parsing).
struct MultipartForm {
    struct Part {
        var name: String
        var filename: String?
        var contentType: String?
        var body: ArraySlice<UInt8>
    }

    let parts: [Part]

    static func boundary(fromContentType contentType: String?) -> String? {
        guard let contentType else { return nil }
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pieces.first?.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("boundary=") {
            let value = unquoted(piece.dropFirst("boundary=".count))
            return value.isEmpty || value.count > 70 ? nil : value
        }
        return nil
    }

    init(bytes: [UInt8], boundary: String) throws {
        let delimiter = Array("--\(boundary)".utf8)
        let malformed = LogisticsError.validation(field: "body", "is not well-formed multipart/form-data")
        var positions: [Int] = []
        var index = 0
        while let found = Self.find(delimiter, in: bytes, from: index) {
            positions.append(found)
            index = found + delimiter.count
        }
        guard positions.count >= 2 else { throw malformed }
        var parts: [Part] = []
        for (start, end) in zip(positions, positions.dropFirst()) {
            var partStart = start + delimiter.count
            // Each delimiter is followed by CRLF; the part ends with CRLF before the next delimiter.
            guard partStart + 2 <= end, bytes[partStart] == 13, bytes[partStart + 1] == 10 else { throw malformed }
            partStart += 2
            let partEnd = end - 2
            guard partEnd >= partStart, bytes[partEnd] == 13, bytes[partEnd + 1] == 10 else { throw malformed }
            // The blank line ending the headers must come before the part's closing CRLF: a part whose headers run
            // into the next delimiter has no body at all, and is malformed rather than a range that ends before it
            // starts (which trapped and took the whole server down).
            guard let headerEnd = Self.find(Array("\r\n\r\n".utf8), in: bytes, from: partStart),
                headerEnd + 4 <= partEnd
            else { throw malformed }
            let headerText = String(decoding: bytes[partStart..<headerEnd], as: UTF8.self)
            var name: String?
            var filename: String?
            var contentType: String?
            for line in headerText.components(separatedBy: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:") {
                    name = Self.parameter("name", in: line)
                    filename = Self.parameter("filename", in: line)
                } else if lower.hasPrefix("content-type:") {
                    contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
                }
            }
            guard let name else { throw malformed }
            parts.append(
                Part(name: name, filename: filename, contentType: contentType, body: bytes[(headerEnd + 4)..<partEnd]))
        }
        self.parts = parts
    }

    func part(_ name: String) -> Part? { parts.first { $0.name == name } }

    func text(_ name: String) -> String? {
        part(name).map { String(decoding: $0.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    private static func parameter(_ key: String, in line: String) -> String? {
        for piece in line.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard piece.lowercased().hasPrefix("\(key)=") else { continue }
            return unquoted(piece.dropFirst(key.count + 1))
        }
        return nil
    }

    /// A header parameter value without its surrounding quotes, if it has them.
    private static func unquoted(_ value: Substring) -> String {
        guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return String(value) }
        return String(value.dropFirst().dropLast())
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else {
            return nil
        }
        let first = needle[0]
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first && haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
