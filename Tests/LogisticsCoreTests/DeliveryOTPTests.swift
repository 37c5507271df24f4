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
}
