import Foundation

/// A token bucket: `burst` requests at once, refilled at `ratePerSecond`. Time is passed in, so the rule is
/// tested without a clock and the same bucket serves sockets (messages) and HTTP (requests).
public struct TokenBucket: Sendable, Equatable {
    public let ratePerSecond: Double
    public let burst: Double
    public private(set) var tokens: Double
    public private(set) var updatedAt: Date

    public init(ratePerSecond: Double, burst: Double, now: Date) {
        self.ratePerSecond = ratePerSecond
        self.burst = burst
        tokens = burst
        updatedAt = now
    }

    /// Takes `cost` tokens if the bucket has them; otherwise leaves it as it was.
    public mutating func take(_ cost: Double = 1, now: Date) -> Bool {
        refill(now)
        guard tokens >= cost else { return false }
        tokens -= cost
        return true
    }

    /// Seconds until `cost` tokens are there (0 when they already are).
    public func secondsUntil(_ cost: Double = 1, now: Date) -> Double {
        var copy = self
        copy.refill(now)
        return copy.tokens >= cost ? 0 : (cost - copy.tokens) / ratePerSecond
    }

    private mutating func refill(_ now: Date) {
        let elapsed = max(0, now.timeIntervalSince(updatedAt))
        tokens = min(burst, tokens + elapsed * ratePerSecond)
        updatedAt = max(updatedAt, now)
    }
}
