import Crypto
import Foundation

/// Twilio's `X-Twilio-Signature`: the base64 HMAC-SHA1, keyed with the account's auth token, of the URL Twilio
/// called followed by every POST parameter's name and value, sorted by name, with nothing between them. (SHA-1 is
/// what Twilio specifies; as an HMAC it still authenticates.)
public enum TwilioSignature {
    public static func sign(url: String, parameters: [(String, String)], authToken: String) -> String {
        let signed = parameters.sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
            .reduce(url) { $0 + $1.0 + $1.1 }
        let mac = HMAC<Insecure.SHA1>.authenticationCode(
            for: Array(signed.utf8), using: SymmetricKey(data: Array(authToken.utf8)))
        return Data(mac).base64EncodedString()
    }

    /// Compared in constant time.
    public static func isValid(
        _ signature: String, url: String, parameters: [(String, String)], authToken: String
    ) -> Bool {
        ConstantTime.equal(
            Array(sign(url: url, parameters: parameters, authToken: authToken).utf8), Array(signature.utf8))
    }
}
