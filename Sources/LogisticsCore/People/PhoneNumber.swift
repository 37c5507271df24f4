/// Phone numbers as E.164: a `+`, a country code that does not start with 0, and at most 15 digits in all.
/// Nothing else is accepted (no spaces, dashes or national formats): a phone is how a person is found, so two
/// spellings of one number must not make two people.
public enum PhoneNumber {
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 8, bytes.count <= 16, bytes[0] == UInt8(ascii: "+"), bytes[1] != UInt8(ascii: "0")
        else { return false }
        return bytes.dropFirst().allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// An order's customer phone (typed by a store, spaces and all) as E.164, or nil when no text can reach it.
    public static func textable(_ typed: String) -> String? {
        let compact = typed.filter { !" -.()".contains($0) }
        return isValid(compact) ? compact : nil
    }

    /// The number with all but its last four digits hidden, for logs and lists where the whole number is not
    /// needed.
    public static func masked(_ phone: String) -> String {
        guard phone.count > 4 else { return phone }
        return String(repeating: "•", count: phone.count - 4) + phone.suffix(4)
    }

    /// Said of a phone the server refuses: no example, which would be one country's number shown in every other.
    public static let requirement = "must be written with its country code: a + and then 7 to 15 digits, no spaces"
}
