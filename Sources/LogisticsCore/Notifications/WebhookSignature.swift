import Crypto
import Foundation

/// The signature a webhook receiver checks: `v1,` + base64 HMAC-SHA256 with the shared secret over
/// `<Webhook-Id>.<Webhook-Timestamp>.<body>`. The timestamp is signed so an old capture cannot be replayed later.
public enum WebhookSignature {
    public static func sign(secret: String, id: String, timestamp: Int, body: [UInt8]) -> String {
        var message = Array("\(id).\(timestamp).".utf8)
        message += body
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Array(secret.utf8)))
        return "v1," + Data(mac).base64EncodedString()
    }
}
