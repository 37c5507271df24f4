import Foundation

/// The rider app's words (the page at `/rider`), by language, with English where a translation is missing. They are
/// data: one file a language in the assets (`rider-text-en.json`, `rider-text-hi.json`, …), so a translator edits a
/// list of words, not Swift, and adds a language with a file and its code here. The English ones are the
/// requirements' own ("Accept Task", "Arrived at Store", "You seem far from the destination. Are you sure you have
/// arrived?", ...): the browser test finds the page's controls by them.
enum RiderAppText {
    static let languages = ["en", "hi", "mr"]

    static let tables: [String: [String: String]] = Dictionary(
        uniqueKeysWithValues: languages.map { ($0, words(of: $0)) })

    /// The words of one language's file, read once; a file that is not one JSON object of strings stops the server
    /// at start rather than showing riders a page of keys.
    static func words(of language: String) -> [String: String] {
        let name = "Rider/Text/rider-text-\(language).json"
        guard let words = try? JSONDecoder().decode([String: String].self, from: WebAssets[name].body.plain) else {
            preconditionFailure("\(name) is not a JSON object of strings")
        }
        return words
    }

    /// Every word of the page in `language`, English where it has no translation.
    static func all(_ language: String) -> [String: String] {
        (tables["en"] ?? [:]).merging(tables[language] ?? [:]) { _, translated in translated }
    }
}
