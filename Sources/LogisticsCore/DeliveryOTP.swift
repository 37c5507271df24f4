import Crypto
import Foundation

/// The customer's 4-digit delivery code.
///
/// The code itself is never stored. Each order keeps a random seed (from a CSPRNG) and a keyed hash
/// of the code; the code is derived from the seed with the server key when the customer views the
/// order, and a rider's attempt is checked against the hash in constant time.
public struct DeliveryOTP: Sendable {
    private let key: SymmetricKey

    public init(serverSecret: [UInt8]) {
        key = SymmetricKey(
            data: HMAC<SHA256>.authenticationCode(
                for: Array("delivery-otp".utf8), using: SymmetricKey(data: serverSecret)))
    }

    /// A new random seed for an order.
    public static func makeSeed<G: RandomNumberGenerator>(using generator: inout G) -> String {
        (0..<16).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    public func code(orderId: UUID, seed: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("code:\(orderId.uuidString.lowercased()):\(seed)".utf8), using: key)
        let value = mac.prefix(4).reduce(UInt32(0)) { ($0 << 8) | UInt32($1) } % 10_000
        return String(format: "%04u", value)
    }

    public func hash(orderId: UUID, code: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("hash:\(orderId.uuidString.lowercased()):\(code)".utf8), using: key)
        return Data(mac).base64EncodedString()
    }

    /// Constant-time comparison of an attempt with the stored hash.
    public func verify(orderId: UUID, attempt: String, storedHash: String) -> Bool {
        guard let stored = Data(base64Encoded: storedHash) else { return false }
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("hash:\(orderId.uuidString.lowercased()):\(attempt)".utf8), using: key)
        let candidate = Data(mac)
        guard candidate.count == stored.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(candidate, stored) { difference |= a ^ b }
        return difference == 0
    }
}
