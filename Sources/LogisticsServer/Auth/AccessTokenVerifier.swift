import Foundation
import JWTKit
import LogisticsCore
import Synchronization

/// Turns a bearer token into an `Actor`, or refuses it with 401 UNAUTHENTICATED.
public struct AccessTokenVerifier: Sendable {
    private let keys: JWTKeyCollection
    /// Algorithms accepted in the header. Anything else — `none` above all — is refused before any
    /// key is consulted.
    private let allowedAlgorithms: Set<String>
    private let issuer: String
    private let audience: String
    private let clock: any WallClock
    /// Tolerated clock difference between token issuer and this server.
    private let leewaySeconds: TimeInterval = 30
    /// Tokens already verified, until they expire: a rider's phone sends the same token with every fix, and
    /// checking its signature each time was a tenth of the server's time under tracking load.
    private let verified = VerifiedTokens()

    public static func make(configuration: ServerConfiguration, secret: String?, clock: any WallClock) async throws
        -> AccessTokenVerifier
    {
        let keys = JWTKeyCollection()
        var algorithms: Set<String> = []
        if let file = configuration.jwtPublicKeyFile {
            let text: String
            do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
                throw ConfigurationError("cannot read the JWT public key file \(file)")
            }
            if text.trimmingCharacters(in: .whitespaces).hasPrefix("{") {
                try await keys.add(jwksJSON: text)
                algorithms = ["RS256", "ES256"]
            } else if let rsa = try? Insecure.RSA.PublicKey(pem: text) {
                await keys.add(rsa: rsa, digestAlgorithm: .sha256)
                algorithms = ["RS256"]
            } else if let ecdsa = try? ES256PublicKey(pem: text) {
                await keys.add(ecdsa: ecdsa)
                algorithms = ["ES256"]
            } else {
                throw ConfigurationError("\(file) holds neither a JWKS, an RSA public key nor a P-256 public key")
            }
        } else if let secret {
            await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
            algorithms = ["HS256"]
        } else {
            throw ConfigurationError("no JWT secret or public key configured")
        }
        return AccessTokenVerifier(
            keys: keys, allowedAlgorithms: algorithms, issuer: configuration.jwtIssuer,
            audience: configuration.jwtAudience, clock: clock)
    }

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
        guard parts.count == 3, let header = Self.decodeHeader(String(parts[0])) else {
            throw Self.refuse("The token is malformed")
        }
        guard let algorithm = header["alg"] as? String, allowedAlgorithms.contains(algorithm) else {
            throw Self.refuse("The token's algorithm is not accepted")
        }
        let claims: AccessTokenClaims
        do {
            claims = try await keys.verify(token, as: AccessTokenClaims.self)
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
        let actor = Actor(id: subject, role: role, name: claims.name)
        verified.remember(token, actor: actor, expiry: claims.exp.value)
        return (actor, claims.exp.value)
    }

    private static func decodeHeader(_ segment: String) -> [String: Any]? {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    private static func refuse(_ detail: String) -> LogisticsError {
        LogisticsError(.unauthenticated, detail)
    }
}

/// A bounded memory of verified tokens; forgotten all at once when full, which costs one re-verification each.
final class VerifiedTokens: Sendable {
    static let capacity = 50_000
    private let entries = Mutex<[String: (Actor, Date)]>([:])

    func lookup(_ token: String) -> (Actor, Date)? { entries.withLock { $0[token] } }

    func remember(_ token: String, actor: Actor, expiry: Date) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = (actor, expiry)
        }
    }
}
