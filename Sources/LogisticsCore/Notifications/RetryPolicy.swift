import Foundation

/// When to try a failed send again: exponential backoff with full jitter, never sooner than the receiver's
/// `Retry-After`, and never past the budget (after which the message is dead-lettered).
public struct RetryPolicy: Sendable, Equatable {
    /// The first retry waits up to this long; each later one doubles it.
    public var base: TimeInterval
    /// No single wait is longer than this.
    public var cap: TimeInterval
    /// How long after the first attempt a message may still be retried.
    public var budget: TimeInterval

    public init(base: TimeInterval, cap: TimeInterval, budget: TimeInterval) {
        self.base = base
        self.cap = cap
        self.budget = budget
    }

    /// Webhooks: first retry within 5 s, then doubling up to an hour apart, for a day.
    public static let webhooks = RetryPolicy(base: 5, cap: 3600, budget: 24 * 3600)
    /// Pushes: a "your rider has arrived" an hour late is noise, so the budget is short.
    public static let pushes = RetryPolicy(base: 2, cap: 300, budget: 3600)

    /// What to do after failed attempt number `attempt` (1 for the first failure) of a message whose budget
    /// started at `since`: retry at a time, or give up.
    public func next(
        afterAttempt attempt: Int, retryAfter: TimeInterval?, since: Date, now: Date,
        random: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
    ) -> Date? {
        let exponent = Double(min(max(attempt - 1, 0), 30))
        let ceiling = min(cap, base * pow(2, exponent))
        // Full jitter spreads a burst of failures (a receiver that came back up) over the whole window.
        var wait = random(0...ceiling)
        if let retryAfter { wait = max(wait, retryAfter) }
        let at = now.addingTimeInterval(max(wait, 0.05))
        return at.timeIntervalSince(since) > budget ? nil : at
    }
}
