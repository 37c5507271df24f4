import Crypto
import Foundation

/// Keys for each purpose, derived from the server secret with HKDF-SHA256 and a label of their own, so a key
/// that leaks from one use (a tracking link MAC studied offline, say) says nothing about the others. Bearer
/// tokens are checked with the configured JWT secret itself: that secret is shared with whoever issues them.
public enum ServerKeys {
    public enum Purpose: String, Sendable, CaseIterable {
        case deliveryCodes = "delivery-otp"
        case trackingLinks = "tracking-links"
        case secretSealing = "webhook-secrets"
        case signInCodes = "sign-in-codes"
    }

    static let salt = Array("rider-logistics server keys".utf8)

    public static func key(for purpose: Purpose, from serverSecret: [UInt8]) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: serverSecret), salt: salt,
            info: Array("rider-logistics/\(purpose.rawValue)/v2".utf8), outputByteCount: 32)
    }

    /// The key the versions before HKDF used (an HMAC of the label), still read so that codes, sealed secrets
    /// and links made before an upgrade keep working; nothing new is made with it.
    public static func legacyKey(for purpose: Purpose, from serverSecret: [UInt8]) -> SymmetricKey {
        SymmetricKey(
            data: HMAC<SHA256>.authenticationCode(
                for: Array(purpose.rawValue.utf8), using: SymmetricKey(data: serverSecret)))
    }
}
