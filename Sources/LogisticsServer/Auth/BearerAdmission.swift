import Foundation
import LogisticsCore
import LogisticsStore

/// A socket's bearer token, checked and admitted like the `Authorization` header of a request: sockets
/// authenticate with their subprotocol or first message, outside the authentication middleware.
struct BearerAdmission: Sendable {
    let verifier: AccessTokenVerifier
    let repository: any LogisticsRepository
    let clock: any WallClock
    let callerCache: CallerCache

    func admit(bearer token: String) async throws -> Actor {
        try await admission(bearer: token).actor
    }

    /// As `admit(bearer:)`, with the moment the token stops being accepted.
    func admission(bearer token: String) async throws -> (actor: Actor, validUntil: Date) {
        let admitted = try await verifier.admission(fromBearer: token)
        try await AuthenticationMiddleware.admit(
            admitted.actor, repository: repository, clock: clock, known: callerCache)
        return admitted
    }
}
