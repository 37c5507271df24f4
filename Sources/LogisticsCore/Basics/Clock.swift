import Foundation
import Synchronization

/// Where the domain gets the current time, so expiry can be tested without sleeping.
public protocol WallClock: Sendable {
    func now() -> Date
}

public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

extension Date {
    /// Milliseconds since the epoch: how the store keeps every instant, identically in both dialects.
    /// Rounded to the nearest millisecond, so a time parsed back from JSON (which may land a hair
    /// below its printed value in binary floating point) maps to the same integer.
    public var epochMillis: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    public init(epochMillis: Int64) {
        self.init(timeIntervalSince1970: Double(epochMillis) / 1000)
    }
}
