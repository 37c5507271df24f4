import Foundation
import LogisticsCore

/// Names a string field holding U+0000. JSON allows it (as `\u0000`), but neither store keeps it: SQLite reads text
/// back only up to the first NUL (a name came back as ""), and PostgreSQL refuses it in `text` columns. Names,
/// addresses and notes never need it, so it is refused at the door for every JSON body.
enum NulCharacterProbe {
    private static let escape = Data(#"\u0000"#.utf8)

    static func field(in data: Data) -> FieldError? {
        // A NUL can only arrive escaped (raw control bytes are not valid JSON), so most bodies skip the parse.
        guard data.range(of: escape) != nil,
            let tree = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let path = firstNul(in: tree, at: [])
        else { return nil }
        return FieldError(field: JSONFieldPath.name(path), message: "must not contain the NUL character (U+0000)")
    }

    private static func firstNul(in value: Any, at path: [JSONFieldPath.Step]) -> [JSONFieldPath.Step]? {
        switch value {
        case let text as String:
            return text.unicodeScalars.contains("\u{0}") ? path : nil
        case let object as [String: Any]:
            for key in object.keys.sorted() {
                if key.unicodeScalars.contains("\u{0}") { return path + [.key(key)] }
                if let found = firstNul(in: object[key]!, at: path + [.key(key)]) { return found }
            }
            return nil
        case let array as [Any]:
            for (index, element) in array.enumerated() {
                if let found = firstNul(in: element, at: path + [.index(index)]) { return found }
            }
            return nil
        default:
            return nil
        }
    }
}
