import Foundation
import LogisticsCore
import Synchronization

/// What one caller may do over sockets, on the same allowance as its API requests: each message it sends costs
/// a request and one more per 4 KiB, and it may hold only so many sockets open at once (per tracking link too).
/// Without these a tracking-link holder could open a thousand sockets and make the server read the database
/// twenty times a second on each.
final class CallerLimits: Sendable {
    /// The per-caller request limiter, shared with `CallerRateLimitMiddleware`; nil when the limit is off.
    let requests: RateLimiter?
    private let clock: any WallClock
    private let perCaller: Int?
    private let perTrackingLink: Int?
    private let open = Mutex<[String: Int]>([:])

    static let bytesPerRequest = 4096

    init(_ limits: RateLimits, clock: any WallClock) {
        requests = limits.perCaller.map { RateLimiter($0, what: "requests") }
        self.clock = clock
        perCaller = limits.socketsPerCaller
        perTrackingLink = limits.socketsPerTrackingLink
    }

    /// Whose allowance a socket draws on, and which cap its seat counts against.
    enum Caller: Sendable {
        case signedIn(UUID)
        case trackingLink(UUID)

        var key: String {
            switch self {
            case .signedIn(let id): id.lowercased
            case .trackingLink(let id): "link:" + id.lowercased
            }
        }
    }

    /// Takes a seat for one more socket of `caller`, or throws 429 when it already has as many as allowed.
    func seat(_ caller: Caller) throws {
        let cap: Int? =
            switch caller {
            case .signedIn: perCaller
            case .trackingLink: perTrackingLink
            }
        guard let cap else { return }
        let key = caller.key
        let taken = open.withLock { open in
            let count = open[key, default: 0]
            guard count < cap else { return false }
            open[key] = count + 1
            return true
        }
        guard taken else {
            let whose = if case .trackingLink = caller { "one tracking link" } else { "one caller" }
            throw LogisticsError(
                .rateLimited, "At most \(cap) sockets may be open at once for \(whose); close one first",
                retryAfterSeconds: 5)
        }
    }

    func unseat(_ caller: Caller) {
        guard (caller.key.hasPrefix("link:") ? perTrackingLink : perCaller) != nil else { return }
        let key = caller.key
        open.withLock { open in
            let count = open[key, default: 0] - 1
            open[key] = count > 0 ? count : nil
        }
    }

    /// Charges one message of `bytes` to the caller's allowance, or throws 429 RATE_LIMITED.
    func charge(_ caller: Caller, bytes: Int) throws {
        try requests?.take(caller.key, cost: 1 + Double(bytes / Self.bytesPerRequest), now: clock.now())
    }
}
