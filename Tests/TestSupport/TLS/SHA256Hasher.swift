import Crypto

/// SHA-256 as lowercase hex, to compare stored photos with what was sent.
struct SHA256Hasher {
    mutating func hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}
