import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `/api/v1/auth`: sign-in by phone and a code sent by SMS, refresh-token rotation and logout. Code and token
/// requests carry no bearer token; logout does.
struct SignInRoutes {
    let signIn: any SignInRepository
    let people: any PeopleRepository
    let codes: SignInCodes
    /// Nil when the server cannot sign tokens (keys from a JWKS only): sign-in by phone is then off.
    let issuer: AccessTokenIssuer?
    let settings: SignInSettings
    /// Proxies whose `X-Forwarded-For` names the client, for the per-address cap on codes.
    let trustedProxies: Set<String>
    /// Where people reach this server: its host ends the SMS, so a phone can offer the code to the page itself.
    let publicURL: String?
    let addressLimiter: RateLimiter
    let sessionEnding: SessionEnding
    let clock: any WallClock

    /// Routes that need no token.
    func registerOpen(in routes: inout RouteTable) {
        routes.postWithoutToken("/auth/code", requestCode)
        routes.postWithoutToken("/auth/token", token)
        routes.postWithoutToken("/auth/refresh", refresh)
    }

    func register(in routes: inout RouteTable) {
        routes.post("/auth/logout", roles: [], replay: .rerun, logout)
    }

    private struct CodeRequest: Decodable { var phone: String }
    private struct TokenRequest: Decodable {
        var phone: String
        var code: String
    }
    private struct RefreshRequest: Decodable { var refreshToken: String }
    /// The same answer whether or not the phone is anyone's.
    private struct CodeAccepted: Encodable {
        var detail = "If this phone belongs to an account, a code is on its way by SMS."
        var expiresInSeconds = Int(SignInCodes.lifetime)
        var resendAfterSeconds = 30
    }

    struct Tokens: Encodable {
        var accessToken: String
        var refreshToken: String
        var tokenType = "Bearer"
        var expiresIn: Int
        var role: String
        var subject: String
        var personId: String
        var sessionId: String
        var name: String
    }

    private func enabledIssuer() throws -> AccessTokenIssuer {
        guard settings.enabled, let issuer else {
            throw LogisticsError(.notFound, "Sign-in by phone is turned off on this server")
        }
        return issuer
    }

    private static func phone(_ text: String) throws -> String {
        guard PhoneNumber.isValid(text) else {
            throw LogisticsError.validation(field: "phone", PhoneNumber.requirement)
        }
        return text
    }

    /// 202 for every well-formed phone, a person's or not, and the same work up to the last two writes: the answer
    /// does not say who has an account.
    @Sendable func requestCode(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try enabledIssuer()
        let body = try await RequestBody.decode(CodeRequest.self, from: request)
        let phone = try Self.phone(body.phone)
        let now = clock.now()
        try addressLimiter.take(
            ClientAddress.of(request, context: context, trustedProxies: trustedProxies), now: now)
        let code = SignInCodes.make()
        let outcome = try await signIn.requestSignInCode(
            phone: phone, codeHash: codes.hash(phone: phone, code: code),
            message: QueuedTextMessage(to: phone, body: message(code: code), secret: true),
            expiresAt: now.addingTimeInterval(SignInCodes.lifetime), now: now)
        if case .limited(let retryAfter) = outcome {
            throw LogisticsError(
                .rateLimited, "Three codes were sent to this phone in the last 10 minutes; wait before asking again",
                retryAfterSeconds: retryAfter)
        }
        return try .json(CodeAccepted(), status: .accepted)
    }

    /// The SMS: the code, how long it lasts, and (with a public address) the origin-bound line that lets a phone
    /// offer the code to the sign-in page on its own (WebOTP: `@host #code` as the last line).
    private func message(code: String) -> String {
        var text = "Rider Logistics: your sign-in code is \(code). It expires in 5 minutes. Do not share it."
        if let host = publicURL.flatMap({ URLComponents(string: $0)?.host }) {
            text += "\n\n@\(host) #\(code)"
        }
        return text
    }

    @Sendable func token(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let issuer = try enabledIssuer()
        let body = try await RequestBody.decode(TokenRequest.self, from: request)
        let phone = try Self.phone(body.phone)
        guard SignInCodes.isWellFormed(body.code) else {
            throw LogisticsError.validation(field: "code", "must be the 6 digits of the code sent by SMS")
        }
        let now = clock.now()
        let codes = self.codes
        let attempt = body.code
        let check = try await signIn.checkSignInCode(phone: phone, now: now) {
            codes.matches(phone: phone, attempt: attempt, storedHash: $0)
        }
        let person: Person
        switch check {
        case .accepted(let accepted):
            person = accepted
        case .wrong(let remaining):
            throw LogisticsError(
                .invalidCode, "That code is not correct", extras: ["attemptsRemaining": .int(remaining)])
        case .locked:
            throw LogisticsError(.codeLocked, "Five wrong codes were tried; ask for a new code")
        case .none:
            throw LogisticsError(
                .invalidCode, "There is no live code for this phone: it expired, was used, or was never sent",
                extras: ["attemptsRemaining": .int(0)])
        }
        guard !person.suspended else {
            throw LogisticsError(.forbidden, "This account is suspended; ask your company to reinstate it")
        }
        let session = SignInSession(
            id: UUID(), personId: person.id, role: person.role, subject: person.tokenSubject, createdAt: now,
            lastUsedAt: now, expiresAt: refreshExpiry(now),
            userAgent: request.headers[.userAgent].map { String($0.prefix(200)) })
        let refreshToken = RefreshTokens.make()
        try await signIn.startSession(
            session, refreshTokenHash: RefreshTokens.hash(refreshToken), refreshExpiresAt: session.expiresAt)
        return try .json(try await tokens(for: person, session: session, refreshToken: refreshToken, issuer: issuer))
    }

    @Sendable func refresh(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let issuer = try enabledIssuer()
        let body = try await RequestBody.decode(RefreshRequest.self, from: request)
        guard RefreshTokens.isWellFormed(body.refreshToken) else {
            throw LogisticsError(.unauthenticated, "This refresh token is not valid; sign in again")
        }
        let now = clock.now()
        let successor = RefreshTokens.make()
        let outcome = try await signIn.rotateRefreshToken(
            hash: RefreshTokens.hash(body.refreshToken), successorHash: RefreshTokens.hash(successor),
            successorExpiresAt: refreshExpiry(now), now: now)
        switch outcome {
        case .rotated(let session, let person):
            return try .json(try await tokens(for: person, session: session, refreshToken: successor, issuer: issuer))
        case .reused:
            throw LogisticsError(
                .unauthenticated,
                "This refresh token was already used, so this sign-in has been ended everywhere; sign in again")
        case .refused(let why):
            throw LogisticsError(.unauthenticated, why)
        case .suspended:
            throw LogisticsError(.forbidden, "This account is suspended; ask your company to reinstate it")
        }
    }

    @Sendable func logout(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller()
        guard let session = actor.sessionId else {
            throw LogisticsError(.conflict, "This token was not made by signing in, so there is no session to end")
        }
        _ = try await sessionEnding.end(session, reason: "signed out", now: clock.now())
        return APIResponse(status: .noContent, body: Data(), contentType: "application/json")
    }

    private func refreshExpiry(_ now: Date) -> Date {
        now.addingTimeInterval(TimeInterval(settings.refreshTokenDays) * 86_400)
    }

    private func tokens(for person: Person, session: SignInSession, refreshToken: String, issuer: AccessTokenIssuer)
        async throws -> Tokens
    {
        let ttl = TimeInterval(settings.accessTokenMinutes * 60)
        let access = try await issuer.token(
            subject: person.tokenSubject, role: person.role, name: person.name, ttl: ttl, now: clock.now(),
            sessionId: session.id)
        return Tokens(
            accessToken: access, refreshToken: refreshToken, expiresIn: Int(ttl), role: person.role.rawValue,
            subject: person.tokenSubject.lowercased, personId: person.id.lowercased,
            sessionId: session.id.lowercased, name: person.name)
    }
}
