import Foundation

extension UUID {
    /// The API's spelling of an id: lowercase, as RFC 9562 recommends. Written digit by digit: Foundation's
    /// `uuidString` goes through `snprintf`, and ids are spelled several times for every rider fix (the group
    /// commit's columns, the relay), where that was a twentieth of the server's CPU.
    public var lowercased: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var at = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    text[at] = Self.hexDigit(byte >> 4)
                    text[at + 1] = Self.hexDigit(byte & 0x0F)
                    at += 2
                }
                return at
            }
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }
}
