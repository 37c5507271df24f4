import Foundation
import Hummingbird
import LogisticsCore
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Who is asking, as far as limits go: the peer's address, or — when the peer is a trusted proxy (nginx, a load
/// balancer) — the last address it added to `X-Forwarded-For`; an IPv6 address by its /64.
enum ClientAddress {
    static func of(_ request: Request, context: LogisticsRequestContext, trustedProxies: Set<String>) -> String {
        let peer = context.channel?.remoteAddress?.ipAddress ?? "unknown"
        guard trustedProxies.contains(peer), let forwarded = request.headers[.init("X-Forwarded-For")!],
            let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        else { return key(peer) }
        return key(last)
    }

    /// The key limits count an address under. One IPv6 subscriber gets a whole /64 to pick addresses from, so
    /// IPv6 is counted by its /64; an IPv4-mapped address is its IPv4 address. Anything else is kept as it is.
    static func key(_ address: String) -> String {
        guard address.contains(":") else { return address }
        var bytes = in6_addr()
        guard inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        let octets = withUnsafeBytes(of: bytes) { Array($0) }
        if octets[0..<10].allSatisfy({ $0 == 0 }), octets[10] == 0xff, octets[11] == 0xff {
            return octets[12..<16].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(octets[$0]) << 8 | UInt16(octets[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }
}

/// 429 RATE_LIMITED with `Retry-After` for a client address over its limit, before anything else is done for it.
struct AddressRateLimitMiddleware: RouterMiddleware {
    typealias Context = LogisticsRequestContext
    let limiter: RateLimiter
    let trustedProxies: Set<String>
    let clock: any WallClock

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try limiter.take(ClientAddress.of(request, context: context, trustedProxies: trustedProxies), now: clock.now())
        return try await next(request, context)
    }
}

/// 429 RATE_LIMITED for a caller (a token's subject) over its limit; behind authentication.
struct CallerRateLimitMiddleware: RouterMiddleware {
    typealias Context = LogisticsRequestContext
    let limiter: RateLimiter
    let clock: any WallClock

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let actor = context.actor { try limiter.take(actor.id.lowercased, now: clock.now()) }
        return try await next(request, context)
    }
}
