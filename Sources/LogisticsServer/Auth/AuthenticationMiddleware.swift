import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// Requires a valid bearer token, provisions riders and customers on first use, and turns away
/// suspended riders.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = LogisticsRequestContext
    let verifier: AccessTokenVerifier
    let repository: any LogisticsRepository
    let clock: any WallClock
    let known: CallerCache

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw LogisticsError(.unauthenticated, "A bearer token is required")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw LogisticsError(.unauthenticated, "Use the Authorization: Bearer <token> scheme")
        }
        // Trimmed by hand: Foundation's trimmingCharacters bridges through NSString on every request.
        var token = parts[1]
        while token.first == " " || token.first == "\t" { token = token.dropFirst() }
        while token.last == " " || token.last == "\t" { token = token.dropLast() }
        let actor = try await verifier.actor(fromBearer: String(token))
        try await Self.admit(actor, repository: repository, clock: clock, known: known)
        var context = context
        context.actor = actor
        context.logger[metadataKey: "actor_role"] = .string(actor.role.rawValue)
        return try await next(request, context)
    }

    /// Provisions riders and customers the first time they are seen and refuses suspended riders; sockets, which
    /// authenticate without this middleware, call it too.
    static func admit(
        _ actor: Actor, repository: any LogisticsRepository, clock: any WallClock, known: CallerCache
    ) async throws {
        if let session = actor.sessionId, !known.sessionIsFresh(session, now: clock.now()) {
            // Read before admitting, not in the background: a revoked session's tokens must stop within 30 s.
            guard try await repository.endedSessions(among: [session], now: clock.now()).isEmpty else {
                throw LogisticsError(.unauthenticated, "This sign-in was ended; sign in again")
            }
            known.rememberLiveSession(session, now: clock.now())
        }
        switch actor.role {
        case .rider:
            let now = clock.now()
            switch known.standing(ofRider: actor.id, now: now) {
            case .active:
                break
            case .dueForRecheck:
                guard known.claimRecheck(actor.id) else { break }
                Task {
                    // A failed read leaves the rider due, and the next request tries again.
                    guard let rider = try? await repository.rider(id: actor.id) else {
                        known.recheckFailed(actor.id)
                        return
                    }
                    if rider.suspended {
                        known.forgetRider(actor.id)
                    } else {
                        known.rememberActiveRider(actor.id, now: clock.now())
                    }
                }
            case .unknown:
                let rider = try await repository.provisionRider(actor, now: now)
                if rider.suspended { throw LogisticsError(.forbidden, "This rider account is suspended") }
                known.rememberActiveRider(actor.id, now: now)
            }
        case .customer:
            if !known.customerIsKnown(actor.id) {
                try await repository.provisionCustomer(actor, now: clock.now())
                known.rememberCustomer(actor.id, now: clock.now())
            }
        case .dispatcher, .admin, .vendor:
            break
        }
    }
}
