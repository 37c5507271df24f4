import Foundation
import LogisticsCore
import LogisticsStore

/// Ends sign-in sessions (logout, an admin's revocation, a suspension) and makes this instance stop trusting them at
/// once: the API forgets it saw them live, and the socket watch looks now, so their sockets close with 4401 without
/// waiting for its next pass. Other instances follow within their 30 s (the API) and their next pass (the sockets).
struct SessionEnding: Sendable {
    let signIn: any SignInRepository
    let callerCache: CallerCache
    let revocationWatch: RevocationWatch

    /// False when there was no live session of that id (ended elsewhere: this instance forgets it all the same).
    func end(_ id: UUID, reason: String, now: Date) async throws -> Bool {
        let ended = try await signIn.revokeSession(id: id, reason: reason, now: now)
        callerCache.forgetSession(id)
        if ended { revocationWatch.checkSoon() }
        return ended
    }

    func endAll(of personId: UUID, reason: String, now: Date) async throws {
        let ended = try await signIn.revokeSessions(personId: personId, reason: reason, now: now)
        ended.forEach(callerCache.forgetSession)
        if !ended.isEmpty { revocationWatch.checkSoon() }
    }
}
