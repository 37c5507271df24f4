import Foundation
import LogisticsCore
import Synchronization

/// How fast one client may go: a token bucket's refill rate and burst.
public struct RateRule: Sendable, Equatable, CustomStringConvertible {
    public var perSecond: Double
    public var burst: Double

    public init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// `RATE/BURST` (e.g. `50/200`), or `off` for no limit.
    static func parse(_ text: String, name: String) throws -> RateRule? {
        if text == "off" { return nil }
        let parts = text.split(separator: "/")
        guard parts.count == 2, let rate = Double(parts[0]), let burst = Double(parts[1]), rate > 0, burst >= 1,
            rate.isFinite, burst.isFinite
        else { throw ConfigurationError("\(name) must be RATE/BURST (per second, e.g. 50/200) or off, not \(text)") }
        return RateRule(perSecond: rate, burst: burst)
    }

    public var description: String { String(format: "%g/s, burst %g", perSecond, burst) }
}

/// The limits each instance enforces on its own (N instances behind a balancer allow up to N times as much; the
/// balancer's own limits are the global ones). nil: no limit.
public struct RateLimits: Sendable, Equatable {
    /// Every request from one client address (before its token is even read).
    public var perAddress: RateRule? = RateRule(perSecond: 50, burst: 200)
    /// Every API request with one token's subject.
    public var perCaller: RateRule? = RateRule(perSecond: 20, burst: 100)
    /// Location fixes from one rider, counted per fix: a phone sends one every few seconds, a batch of up to 500
    /// after a tunnel.
    public var fixesPerRider: RateRule? = RateRule(perSecond: 10, burst: 1_000)
    /// Sockets open at once for one caller (a token's subject): a dispatcher's tabs, a rider's phone and its
    /// reconnections.
    public var socketsPerCaller: Int? = 20
    /// Sockets open at once on one tracking link: a family following one delivery.
    public var socketsPerTrackingLink: Int? = 10

    public init() {}

    public static let off: RateLimits = {
        var limits = RateLimits()
        limits.perAddress = nil
        limits.perCaller = nil
        limits.fixesPerRider = nil
        limits.socketsPerCaller = nil
        limits.socketsPerTrackingLink = nil
        return limits
    }()
}

/// Token buckets by key (a client address, a caller's id), each refilled as time passes. Keys idle for a while are
/// forgotten, so a flood of one-off addresses cannot grow the table without bound.
final class RateLimiter: Sendable {
    let rule: RateRule
    let what: String
    private let buckets = Mutex<[String: TokenBucket]>([:])
    static let maximumKeys = 100_000
    static let forgetAfter: TimeInterval = 120

    init(_ rule: RateRule, what: String) {
        self.rule = rule
        self.what = what
    }

    /// How many keys the limiter remembers (bounded by `maximumKeys`).
    var trackedKeys: Int { buckets.withLock { $0.count } }

    /// Takes `cost` from the key's bucket, or throws 429 RATE_LIMITED with the seconds until it would succeed.
    func take(_ key: String, cost: Double = 1, now: Date) throws {
        let wait: Double? = buckets.withLock { buckets in
            if buckets.count >= Self.maximumKeys, buckets[key] == nil {
                buckets = buckets.filter { now.timeIntervalSince($0.value.updatedAt) < Self.forgetAfter }
                // All of them active (a flood from that many addresses): start over rather than filter the whole
                // table again for every new key.
                if buckets.count >= Self.maximumKeys { buckets.removeAll(keepingCapacity: true) }
            }
            var bucket = buckets[key] ?? TokenBucket(ratePerSecond: rule.perSecond, burst: rule.burst, now: now)
            defer { buckets[key] = bucket }
            if bucket.take(cost, now: now) { return nil }
            // A cost larger than the burst can never fit: say so rather than ask the client to wait forever.
            return cost > rule.burst ? .infinity : bucket.secondsUntil(cost, now: now)
        }
        guard let wait else { return }
        if wait.isInfinite {
            throw LogisticsError(
                .rateLimited, "At most \(Int(rule.burst)) \(what) at once",
                retryAfterSeconds: Int(rule.burst / rule.perSecond))
        }
        throw LogisticsError(
            .rateLimited, "Too many \(what); at most \(rule) are allowed",
            retryAfterSeconds: max(1, Int(wait.rounded(.up))))
    }
}
