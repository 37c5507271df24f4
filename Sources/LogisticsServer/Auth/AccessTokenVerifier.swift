import Foundation
import JWTKit
import LogisticsCore
import Synchronization

/// Turns a bearer token into an `Actor`, or refuses it with 401 UNAUTHENTICATED.
public struct AccessTokenVerifier: Sendable {
    /// Every key with the one algorithm it verifies: anything else in a header — `none` above all — is refused
    /// before any key is consulted.
    private let keys: TokenKeys
    private let issuer: String
    private let audience: String
    private let clock: any WallClock
    /// Tolerated clock difference between token issuer and this server.
    private let leewaySeconds: TimeInterval = 30
    /// Tokens already verified, until they expire: a rider's phone sends the same token with every fix, and
    /// checking its signature each time was a large share of the server's time under tracking load.
    private let verified = VerifiedTokens()

    public static func make(configuration: ServerConfiguration, secret: String?, clock: any WallClock) async throws
        -> AccessTokenVerifier
    {
        let keys: TokenKeys
        if let file = configuration.tokens.publicKeyFile {
            keys = try await TokenKeys.file(file, configuredAlgorithm: configuration.tokens.publicKeyAlgorithm)
        } else if let secret {
            keys = await TokenKeys.secret(secret)
        } else {
            throw ConfigurationError("no JWT secret or public key configured")
        }
        return AccessTokenVerifier(
            keys: keys, issuer: configuration.tokens.issuer, audience: configuration.tokens.audience, clock: clock)
    }

    /// Forgets the verified tokens that have expired (housekeeping of memory, once a minute).
    @discardableResult
    func forgetExpired() -> Int { verified.forgetExpired(now: clock.now(), leeway: leewaySeconds) }

    var rememberedTokens: Int { verified.count }

    public func actor(fromBearer token: String) async throws -> Actor {
        try await admission(fromBearer: token).actor
    }

    /// The caller and when their token stops being accepted (its `exp` plus the leeway): open sockets close then.
    public func admission(fromBearer token: String) async throws -> (actor: Actor, validUntil: Date) {
        let now = clock.now()
        if let (actor, expiry) = verified.lookup(token) {
            if expiry.addingTimeInterval(leewaySeconds) >= now {
                return (actor, expiry.addingTimeInterval(leewaySeconds))
            }
            throw Self.refuse("The token has expired")
        }
        let (actor, expiry) = try await verify(token, now: now)
        return (actor, expiry.addingTimeInterval(leewaySeconds))
    }

    private func verify(_ token: String, now: Date) async throws -> (Actor, Date) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = TokenHeader(base64URL: parts[0]) else {
            throw Self.refuse("The token is malformed")
        }
        guard keys.expectedAlgorithm(for: header) == header.algorithm else {
            throw Self.refuse("The token's algorithm is not accepted")
        }
        let claims: AccessTokenClaims
        do {
            claims = try await keys.collection.verify(token, as: AccessTokenClaims.self)
        } catch {
            throw Self.refuse("The token's signature or claims are invalid")
        }
        if claims.exp.value.addingTimeInterval(leewaySeconds) < now { throw Self.refuse("The token has expired") }
        if let nbf = claims.nbf, nbf.value.addingTimeInterval(-leewaySeconds) > now {
            throw Self.refuse("The token is not valid yet")
        }
        if claims.iat.value.addingTimeInterval(-leewaySeconds) > now { throw Self.refuse("The token is not valid yet") }
        guard claims.iss.value == issuer else { throw Self.refuse("The token was issued by someone else") }
        guard claims.aud.value.contains(audience) else { throw Self.refuse("The token is meant for another service") }
        guard let subject = UUID(uuidString: claims.sub.value) else {
            throw Self.refuse("The token's subject is not a UUID")
        }
        guard let role = Role(rawValue: claims.role) else { throw Self.refuse("The token's role is unknown") }
        var sessionId: UUID?
        if let sid = claims.sid {
            guard let parsed = UUID(uuidString: sid) else { throw Self.refuse("The token's session is not a UUID") }
            sessionId = parsed
        }
        let actor = Actor(id: subject, role: role, name: claims.name, sessionId: sessionId)
        verified.remember(token, actor: actor, expiry: claims.exp.value)
        return (actor, claims.exp.value)
    }

    private static func refuse(_ detail: String) -> LogisticsError {
        LogisticsError(.unauthenticated, detail)
    }
}

/// A bounded memory of verified tokens: expired ones are forgotten (`forgetExpired`, and first when full), and only if
/// all are still live is everything forgotten at once, which costs one re-verification each.
final class VerifiedTokens: Sendable {
    static let capacity = 50_000
    private let entries = Mutex<[String: (Actor, Date)]>([:])

    func lookup(_ token: String) -> (Actor, Date)? { entries.withLock { $0[token] } }

    func remember(_ token: String, actor: Actor, expiry: Date) {
        entries.withLock { entries in
            if entries.count >= Self.capacity {
                entries = entries.filter { $0.value.1 > Date() }
                if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[token] = (actor, expiry)
        }
    }

    /// Drops tokens past their `exp` (and the leeway) at `now`: a token lives an hour, and every one ever used stayed.
    @discardableResult
    func forgetExpired(now: Date, leeway: TimeInterval) -> Int {
        entries.withLock { entries in
            let before = entries.count
            entries = entries.filter { $0.value.1.addingTimeInterval(leeway) >= now }
            return before - entries.count
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
