import Foundation

/// Deterministic damage for the parser fuzz tests: each call applies one to three of the mutations real inputs
/// suffer (bit flips, truncation, bytes inserted, deleted or overwritten, a chunk repeated, boundary values), driven
/// by the caller's seeded generator so a failing case can be replayed from its seed and index.
public struct ByteMutator<Generator: RandomNumberGenerator> {
    public var generator: Generator

    public init(_ generator: Generator) { self.generator = generator }

    /// Bytes parsers treat specially: delimiters, quotes, escapes, varint continuation bits, sign bits.
    static var interesting: [UInt8] { [0x00, 0x01, 0x0A, 0x0D, 0x22, 0x2D, 0x3B, 0x3D, 0x5C, 0x7F, 0x80, 0xFF] }

    public mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...3, using: &generator) { mutateOnce(&bytes) }
        return bytes
    }

    public mutating func randomBytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }

    private mutating func mutateOnce(_ bytes: inout [UInt8]) {
        let at = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0..<7, using: &generator) {
        case 0 where !bytes.isEmpty:
            bytes[at] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
        case 1:
            bytes.removeSubrange(at...)
        case 2:
            bytes.insert(contentsOf: randomBytes(int(1...16)), at: at)
        case 3 where !bytes.isEmpty:
            bytes.removeSubrange(at..<min(bytes.count, at + int(1...16)))
        case 4 where !bytes.isEmpty:
            for index in at..<min(bytes.count, at + int(1...32)) {
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
        case 5 where !bytes.isEmpty:
            let chunk = bytes[at..<min(bytes.count, at + int(1...64))]
            bytes.insert(contentsOf: chunk, at: int(0...bytes.count))
        default:
            let byte = Self.interesting.randomElement(using: &generator)!
            if bytes.isEmpty { bytes.append(byte) } else { bytes[at] = byte }
        }
    }
}

/// Runs one fuzz case and returns how long it took, for the per-case time bound (a hang shows as a slow case, and
/// the suite's time limit stops one that never returns).
public func timed(_ body: () throws -> Void) rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return clock.now - start
}
