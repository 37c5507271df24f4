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

/// Token buckets by key (a client address, a caller's id), each refilled as time passes. The table is bounded:
/// past `maximumKeys` the least recently used tenth is forgotten. (Emptying it, as before, let 100,000 fresh
/// addresses in two minutes reset every client's bucket.)
final class RateLimiter: Sendable {
    let rule: RateRule
    let what: String
    private let table = Mutex(Table())
    static let maximumKeys = 100_000

    private struct Table {
        var buckets: [String: (bucket: TokenBucket, lastUse: UInt64)] = [:]
        var uses: UInt64 = 0

        /// Forgets the least recently used tenth of the keys: one sort per 10,000 new keys, not one per key.
        mutating func evict() {
            let keep = RateLimiter.maximumKeys * 9 / 10
            let byUse = buckets.map { ($0.value.lastUse, $0.key) }.sorted { $0.0 < $1.0 }
            for (_, key) in byUse.prefix(buckets.count - keep) { buckets[key] = nil }
        }
    }

    init(_ rule: RateRule, what: String) {
        self.rule = rule
        self.what = what
    }

    /// How many keys the limiter remembers (bounded by `maximumKeys`).
    var trackedKeys: Int { table.withLock { $0.buckets.count } }

    /// Takes `cost` from the key's bucket, or throws 429 RATE_LIMITED with the seconds until it would succeed.
    func take(_ key: String, cost: Double = 1, now: Date) throws {
        let wait: Double? = table.withLock { table in
            if table.buckets.count >= Self.maximumKeys, table.buckets[key] == nil { table.evict() }
            table.uses += 1
            var bucket =
                table.buckets[key]?.bucket ?? TokenBucket(ratePerSecond: rule.perSecond, burst: rule.burst, now: now)
            defer { table.buckets[key] = (bucket, table.uses) }
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

extension RateLimits {
    static var environment: [EnvironmentSetting<Self>] {
        [
            .custom("LOGISTICS_RATE_LIMIT_ADDRESS") {
                $0.perAddress = try RateRule.parse($1, name: "LOGISTICS_RATE_LIMIT_ADDRESS")
            },
            .custom("LOGISTICS_RATE_LIMIT_CALLER") {
                $0.perCaller = try RateRule.parse($1, name: "LOGISTICS_RATE_LIMIT_CALLER")
            },
            .custom("LOGISTICS_RATE_LIMIT_FIXES") {
                $0.fixesPerRider = try RateRule.parse($1, name: "LOGISTICS_RATE_LIMIT_FIXES")
            },
            .limit("LOGISTICS_SOCKETS_PER_CALLER", \.socketsPerCaller, in: 1...100_000),
            .limit("LOGISTICS_SOCKETS_PER_TRACKING_LINK", \.socketsPerTrackingLink, in: 1...100_000),
        ]
    }
}
