import Crypto
import Foundation

/// Meta's `X-Hub-Signature-256` on WhatsApp webhooks: `sha256=` and the lowercase hex HMAC-SHA256 of the raw body,
/// keyed with the app secret.
public enum WhatsAppSignature {
    public static func sign(body: [UInt8], appSecret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Array(appSecret.utf8)))
        return "sha256=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    /// The prefix as Meta writes it; the hex digits in either case.
    public static func isValid(_ header: String, body: [UInt8], appSecret: String) -> Bool {
        guard header.hasPrefix("sha256=") else { return false }
        let given = "sha256=" + header.dropFirst("sha256=".count).lowercased()
        return ConstantTime.equal(Array(given.utf8), Array(sign(body: body, appSecret: appSecret).utf8))
    }
}
