import Crypto
import Foundation
import LogisticsCore
import Testing

@Suite("Delivery codes")
struct DeliveryOTPTests {
    let otp = DeliveryOTP(serverSecret: Array("server-secret".utf8))

    @Test("codes are 4 digits, stable for an order, and checked against the keyed hash")
    func roundTrip() {
        let orderId = UUID()
        var generator = SystemRandomNumberGenerator()
        let seed = DeliveryOTP.makeSeed(using: &generator)
        let code = otp.code(orderId: orderId, seed: seed)
        #expect(code.count == 4 && code.allSatisfy(\.isNumber))
        #expect(otp.code(orderId: orderId, seed: seed) == code)
        let hash = otp.hash(orderId: orderId, code: code)
        #expect(!hash.contains(code))
        #expect(otp.verify(orderId: orderId, attempt: code, storedHash: hash))
        let wrong = String(format: "%04d", (Int(code)! + 1) % 10_000)
        #expect(!otp.verify(orderId: orderId, attempt: wrong, storedHash: hash))
        #expect(!otp.verify(orderId: UUID(), attempt: code, storedHash: hash))
        #expect(!otp.verify(orderId: orderId, attempt: code, storedHash: "not base64"))
    }

    @Test("another server key gives another hash")
    func keyed() {
        let other = DeliveryOTP(serverSecret: Array("another-secret".utf8))
        let orderId = UUID()
        #expect(otp.hash(orderId: orderId, code: "1234") != other.hash(orderId: orderId, code: "1234"))
    }

    @Test("codes keep leading zeros and spread over all four digits")
    func distribution() {
        var generator = SystemRandomNumberGenerator()
        let codes = (0..<2000).map { _ in otp.code(orderId: UUID(), seed: DeliveryOTP.makeSeed(using: &generator)) }
        #expect(codes.allSatisfy { $0.count == 4 })
        #expect(codes.contains { $0.hasPrefix("0") })
        #expect(Set(codes).count > 1500)
    }

    @Test("an order made before the HKDF keys keeps its code: shown and checked with the key it was hashed with")
    func legacyOrder() {
        let secret = Array("server-secret".utf8)
        let legacy = ServerKeys.legacyKey(for: .deliveryCodes, from: secret)
        let orderId = UUID()
        let seed = "00112233445566778899aabbccddeeff"
        let id = orderId.uuidString.lowercased()
        let mac = HMAC<SHA256>.authenticationCode(for: Array("code:\(id):\(seed)".utf8), using: legacy)
        let oldCode = String(format: "%04u", mac.prefix(4).reduce(UInt32(0)) { ($0 << 8) | UInt32($1) } % 10_000)
        let oldHash = Data(HMAC<SHA256>.authenticationCode(for: Array("hash:\(id):\(oldCode)".utf8), using: legacy))
            .base64EncodedString()
        #expect(otp.code(orderId: orderId, seed: seed, storedHash: oldHash) == oldCode)
        #expect(otp.verify(orderId: orderId, attempt: oldCode, storedHash: oldHash))
        // New orders use the HKDF key: their hash is not the legacy one.
        #expect(otp.hash(orderId: orderId, code: oldCode) != oldHash)
    }

    @Test("each purpose has its own key, none equal to the pre-HKDF one")
    func separateKeys() {
        let secret = Array("server-secret".utf8)
        let keys = ServerKeys.Purpose.allCases.map { ServerKeys.key(for: $0, from: secret) }
        let legacy = ServerKeys.Purpose.allCases.map { ServerKeys.legacyKey(for: $0, from: secret) }
        let all = (keys + legacy).map { $0.withUnsafeBytes { Data($0) } }
        #expect(Set(all).count == all.count)
    }
}
