import Testing

@testable import LogisticsStore

/// PostgreSQL takes `$1, $2, …` where the store's statements say `?`; the renumbering runs on every statement sent.
@Suite("Placeholders numbered for PostgreSQL")
struct PlaceholderNumberingTests {
    @Test("each ? becomes the next $n, and the text between is kept byte for byte")
    func numbered() {
        #expect("SELECT 1".numberingPlaceholders() == "SELECT 1")
        #expect("".numberingPlaceholders() == "")
        #expect("?".numberingPlaceholders() == "$1")
        #expect(
            "UPDATE riders SET name = ? WHERE id = ? AND note <> 'café ✓'".numberingPlaceholders()
                == "UPDATE riders SET name = $1 WHERE id = $2 AND note <> 'café ✓'")
        #expect("(?,?)?é".numberingPlaceholders() == "($1,$2)$3é")
    }

    @Test("lists of thousands of placeholders count on past nine and ninety-nine")
    func many() {
        let numbered = placeholders(1_234).numberingPlaceholders()
        #expect(numbered == (1...1_234).map { "$\($0)" }.joined(separator: ", "))
    }
}
