import Foundation
import Hummingbird
import LogisticsCore
import NIOCore

/// Who is asking, as far as limits go: the peer's address, or — when the peer is a trusted proxy (nginx, a load
/// balancer) — the last address it added to `X-Forwarded-For`.
enum ClientAddress {
    static func of(_ request: Request, context: LogisticsRequestContext, trustedProxies: Set<String>) -> String {
        let peer = context.channel?.remoteAddress?.ipAddress ?? "unknown"
        guard trustedProxies.contains(peer), let forwarded = request.headers[.init("X-Forwarded-For")!],
            let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        else { return peer }
        return last
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
