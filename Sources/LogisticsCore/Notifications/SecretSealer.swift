import Crypto
import Foundation

/// Keeps shared secrets (a webhook's signing secret) encrypted at rest, so a copy of the database — a backup, a
/// replica, a dump handed to support — does not let its holder sign events as us. The secret must stay
/// recoverable to sign with, so it is sealed (AES-256-GCM under a key derived from the server secret), not hashed.
public struct SecretSealer: Sendable {
    /// v2 is sealed under the HKDF key; v1 (under the older HMAC-derived key) is still opened.
    static let prefix = "sealed:v2:"
    static let legacyPrefix = "sealed:v1:"
    private let key: SymmetricKey
    private let legacyKey: SymmetricKey

    public init(serverSecret: [UInt8]) {
        key = ServerKeys.key(for: .secretSealing, from: serverSecret)
        legacyKey = ServerKeys.legacyKey(for: .secretSealing, from: serverSecret)
    }

    /// `sealed:v2:` + base64(nonce ‖ ciphertext ‖ tag); a fresh nonce each time.
    public func seal(_ secret: String) -> String {
        // Sealing with a valid 256-bit key and a random nonce cannot fail.
        let box = try! AES.GCM.seal(Array(secret.utf8), using: key)
        return Self.prefix + box.combined!.base64EncodedString()
    }

    public static func isSealed(_ stored: String) -> Bool { stored.hasPrefix(prefix) || stored.hasPrefix(legacyPrefix) }

    /// Sealed under the current key: nothing to rewrite.
    public static func isCurrent(_ stored: String) -> Bool { stored.hasPrefix(prefix) }

    /// The secret. A value written before sealing existed (no prefix) is returned as it is, so instances of the
    /// previous version can run beside this one during an upgrade.
    public func open(_ stored: String) throws -> String {
        guard Self.isSealed(stored) else { return stored }
        let key = stored.hasPrefix(Self.prefix) ? key : legacyKey
        guard let data = Data(base64Encoded: String(stored.dropFirst(Self.prefix.count))),
            let box = try? AES.GCM.SealedBox(combined: data),
            let plain = try? AES.GCM.open(box, using: key)
        else { throw UnreadableSecret() }
        return String(decoding: plain, as: UTF8.self)
    }

    public struct UnreadableSecret: Error, CustomStringConvertible {
        public var description: String {
            "the stored secret cannot be read with this server's secret (was LOGISTICS_OTP_SECRET or "
                + "LOGISTICS_JWT_SECRET changed?); register the webhook again"
        }
    }
}
