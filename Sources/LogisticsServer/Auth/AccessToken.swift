import Foundation
import JWTKit
import LogisticsCore

/// The claims of an API access token.
public struct AccessTokenClaims: JWTPayload {
    public var sub: SubjectClaim
    public var role: String
    public var name: String?
    public var exp: ExpirationClaim
    public var iat: IssuedAtClaim
    public var nbf: NotBeforeClaim?
    public var iss: IssuerClaim
    public var aud: AudienceClaim
    /// The sign-in session the token belongs to (tokens from `POST /auth/token` and `/auth/refresh`); a revoked
    /// session's tokens stop being accepted.
    public var sid: String?

    public init(
        subject: UUID, role: Role, name: String?, issuedAt: Date, expiresAt: Date, issuer: String,
        audience: String, sessionId: UUID? = nil
    ) {
        sub = SubjectClaim(value: subject.lowercased)
        sid = sessionId?.lowercased
        self.role = role.rawValue
        self.name = name
        iat = IssuedAtClaim(value: issuedAt)
        exp = ExpirationClaim(value: expiresAt)
        nbf = nil
        iss = IssuerClaim(value: issuer)
        aud = AudienceClaim(value: audience)
    }

    /// Signature checks happen in the key collection; the time and audience checks are done by
    /// `AccessTokenVerifier` against its injected clock.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Signs development tokens with the server's HS256 secret.
public struct AccessTokenIssuer: Sendable {
    private let keys: JWTKeyCollection
    private let issuer: String
    private let audience: String

    public init(secret: String, issuer: String = "rider-logistics", audience: String = "rider-logistics-api") async {
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        self.issuer = issuer
        self.audience = audience
    }

    public func token(
        subject: UUID, role: Role, name: String? = nil, ttl: TimeInterval = 3600, now: Date = Date(),
        sessionId: UUID? = nil
    ) async throws -> String {
        try await keys.sign(
            AccessTokenClaims(
                subject: subject, role: role, name: name, issuedAt: now, expiresAt: now.addingTimeInterval(ttl),
                issuer: issuer, audience: audience, sessionId: sessionId))
    }
}
