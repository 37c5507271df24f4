import Crypto
import Foundation

/// The customer's 4-digit delivery code.
///
/// The code itself is never stored. Each order keeps a random seed (from a CSPRNG) and a keyed hash
/// of the code; the code is derived from the seed with the server key when the customer views the
/// order, and a rider's attempt is checked against the hash in constant time.
public struct DeliveryOTP: Sendable {
    /// The current key first; then the one orders made before the HKDF keys were hashed with.
    private let keys: [SymmetricKey]

    public init(serverSecret: [UInt8]) {
        keys = [
            ServerKeys.key(for: .deliveryCodes, from: serverSecret),
            ServerKeys.legacyKey(for: .deliveryCodes, from: serverSecret),
        ]
    }

    /// A new random seed for an order.
    public static func makeSeed<G: RandomNumberGenerator>(using generator: inout G) -> String {
        (0..<16).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// The order's code. With its stored hash, the code is made with whichever key the hash was made with, so a
    /// customer of an order created before an upgrade still sees the code the rider's attempt is checked against.
    public func code(orderId: UUID, seed: String, storedHash: String? = nil) -> String {
        guard let storedHash else { return code(orderId: orderId, seed: seed, key: keys[0]) }
        for key in keys {
            let candidate = code(orderId: orderId, seed: seed, key: key)
            if hash(orderId: orderId, code: candidate, key: key) == storedHash { return candidate }
        }
        return code(orderId: orderId, seed: seed, key: keys[0])
    }

    public func hash(orderId: UUID, code: String) -> String {
        hash(orderId: orderId, code: code, key: keys[0])
    }

    private func code(orderId: UUID, seed: String, key: SymmetricKey) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("code:\(orderId.lowercased):\(seed)".utf8), using: key)
        let value = mac.prefix(4).reduce(UInt32(0)) { ($0 << 8) | UInt32($1) } % 10_000
        return String(format: "%04u", value)
    }

    private func hash(orderId: UUID, code: String, key: SymmetricKey) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("hash:\(orderId.lowercased):\(code)".utf8), using: key)
        return Data(mac).base64EncodedString()
    }

    /// Constant-time comparison of an attempt with the stored hash.
    public func verify(orderId: UUID, attempt: String, storedHash: String) -> Bool {
        keys.contains { verify(orderId: orderId, attempt: attempt, storedHash: storedHash, key: $0) }
    }

    private func verify(orderId: UUID, attempt: String, storedHash: String, key: SymmetricKey) -> Bool {
        guard let stored = Data(base64Encoded: storedHash) else { return false }
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("hash:\(orderId.lowercased):\(attempt)".utf8), using: key)
        let candidate = Data(mac)
        guard candidate.count == stored.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(candidate, stored) { difference |= a ^ b }
        return difference == 0
    }
}
