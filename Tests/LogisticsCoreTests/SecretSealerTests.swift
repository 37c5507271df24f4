import Crypto
import Foundation
import LogisticsCore
import Testing

@Suite("Secrets sealed at rest")
struct SecretSealerTests {
    let sealer = SecretSealer(serverSecret: Array("server-secret-0123456789abcdef-0123".utf8))

    @Test("sealing round-trips, never shows the secret, and uses a fresh nonce each time")
    func roundTrip() throws {
        let secret = "whsec-पासवर्ड-0123456789"
        let first = sealer.seal(secret)
        let second = sealer.seal(secret)
        #expect(first.hasPrefix("sealed:v2:") && !first.contains("whsec"))
        #expect(first != second)
        #expect(try sealer.open(first) == secret)
        #expect(try sealer.open(second) == secret)
    }

    @Test("another server secret, a changed byte or a cut value cannot be opened; unsealed values pass through")
    func refusals() throws {
        let sealed = sealer.seal("whsec-0123456789abcdef")
        let other = SecretSealer(serverSecret: Array("another-server-secret-0123456789ab".utf8))
        #expect(throws: SecretSealer.UnreadableSecret.self) { try other.open(sealed) }
        var bytes = Data(base64Encoded: String(sealed.dropFirst("sealed:v2:".count)))!
        bytes[bytes.count / 2] ^= 0x01
        #expect(throws: SecretSealer.UnreadableSecret.self) {
            try sealer.open("sealed:v2:" + bytes.base64EncodedString())
        }
        #expect(throws: SecretSealer.UnreadableSecret.self) { try sealer.open(String(sealed.dropLast(8))) }
        #expect(throws: SecretSealer.UnreadableSecret.self) { try sealer.open("sealed:v2:not base64!") }
        #expect(try sealer.open("plain-secret-from-before") == "plain-secret-from-before")
    }

    @Test("a secret sealed under the pre-HKDF key (v1) still opens; new seals are v2")
    func legacySeal() throws {
        let serverSecret = Array("server-secret-0123456789abcdef-0123".utf8)
        let legacy = ServerKeys.legacyKey(for: .secretSealing, from: serverSecret)
        let box = try AES.GCM.seal(Array("whsec-old".utf8), using: legacy)
        let stored = "sealed:v1:" + box.combined!.base64EncodedString()
        #expect(SecretSealer.isSealed(stored) && !SecretSealer.isCurrent(stored))
        #expect(try sealer.open(stored) == "whsec-old")
        #expect(SecretSealer.isCurrent(sealer.seal("whsec-old")))
    }
}
