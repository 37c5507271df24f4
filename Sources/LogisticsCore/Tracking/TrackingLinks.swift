import Crypto
import Foundation

/// Order-scoped, read-only tracking tokens for people without an account (a link texted to the recipient).
///
/// The token is a stored link's id and a keyed MAC of it: a forged or damaged token is refused without a database
/// lookup, and the stored row says which order it opens and whether it was revoked. Links made before links were
/// stored carry the order id instead, under the older key; they open their order until it ends and cannot be
/// revoked. A token is not a JWT on purpose, so no endpoint that takes a bearer JWT can mistake it for one.
public struct TrackingLinks: Sendable {
    static let prefix = "trk_"
    static let storedPrefix = "trk2_"
    static let shortPrefix = "t3"
    /// Bytes of the MAC a short token keeps: 96 bits, beside the link id's 122 random ones, is beyond guessing.
    static let shortMACBytes = 12
    private let key: SymmetricKey
    private let legacyKey: SymmetricKey

    /// What a well-formed, authentic token names.
    public enum Reference: Sendable, Equatable {
        /// A stored link, by its id.
        case link(UUID)
        /// A link from before links were stored: the order itself.
        case legacyOrder(UUID)
    }

    public init(serverSecret: [UInt8]) {
        key = ServerKeys.key(for: .trackingLinks, from: serverSecret)
        legacyKey = ServerKeys.legacyKey(for: .trackingLinks, from: serverSecret)
    }

    public func token(linkId: UUID) -> String {
        let id = Self.hex(linkId)
        return Self.storedPrefix + id + "."
            + Self.base64URL(Data(HMAC<SHA256>.authenticationCode(for: Array(id.utf8), using: key)))
    }

    /// The same link in 41 characters instead of 82, for text messages: one SMS segment must hold the words and
    /// the link. The link id in base64url, a dot, and the first 96 bits of its MAC.
    public func shortToken(linkId: UUID) -> String {
        let id = Self.base64URL(withUnsafeBytes(of: linkId.uuid) { Data($0) })
        let mac = Data(HMAC<SHA256>.authenticationCode(for: Array(id.utf8), using: key)).prefix(Self.shortMACBytes)
        return Self.shortPrefix + id + "." + Self.base64URL(mac)
    }

    /// What the token names, or nil for anything forged, truncated or not a tracking token.
    public func reference(fromToken token: String) -> Reference? {
        if token.hasPrefix(Self.shortPrefix) {
            return Self.verifiedShort(token.dropFirst(Self.shortPrefix.count), key: key)
        }
        if token.hasPrefix(Self.storedPrefix) {
            return Self.verified(token.dropFirst(Self.storedPrefix.count), key: key).map(Reference.link)
        }
        if token.hasPrefix(Self.prefix) {
            return Self.verified(token.dropFirst(Self.prefix.count), key: legacyKey).map(Reference.legacyOrder)
        }
        return nil
    }

    /// A token as the versions before stored links made it (tests of the upgrade path make one).
    public func legacyToken(orderId: UUID) -> String {
        let id = Self.hex(orderId)
        return Self.prefix + id + "."
            + Self.base64URL(Data(HMAC<SHA256>.authenticationCode(for: Array(id.utf8), using: legacyKey)))
    }

    private static func verified(_ body: Substring, key: SymmetricKey) -> UUID? {
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        // Only the one spelling the server writes: the decoder ignores the unused low bits of the last character,
        // so without the comparison several tokens would open the same link.
        guard parts.count == 2, parts[0].count == 32, let signature = data(base64URL: String(parts[1])),
            base64URL(signature) == parts[1],
            HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Array(parts[0].utf8), using: key)
        else { return nil }
        let hex = Array(parts[0])
        let dashed =
            String(hex[0..<8]) + "-" + String(hex[8..<12]) + "-" + String(hex[12..<16]) + "-" + String(hex[16..<20])
            + "-" + String(hex[20..<32])
        return UUID(uuidString: dashed)
    }

    private static func verifiedShort(_ body: Substring, key: SymmetricKey) -> Reference? {
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 22, let idBytes = data(base64URL: String(parts[0])),
            idBytes.count == 16, base64URL(idBytes) == parts[0], let mac = data(base64URL: String(parts[1])),
            mac.count == shortMACBytes, base64URL(mac) == parts[1]
        else { return nil }
        let expected = Data(HMAC<SHA256>.authenticationCode(for: Array(parts[0].utf8), using: key)).prefix(
            shortMACBytes)
        // Compared in constant time, as the full MAC is.
        guard ConstantTime.equal(expected, mac) else { return nil }
        let uuid = idBytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
        return .link(UUID(uuid: uuid))
    }

    private static func hex(_ id: UUID) -> String {
        id.lowercased.replacingOccurrences(of: "-", with: "")
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func data(base64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
