import Foundation

/// A typed client for signing in by phone: ask for a code, trade it with the phone for tokens, renew them with the
/// refresh token (each use gives a new one), and end the session. Only ending it needs an access token.
public struct SignInAPI: Sendable {
    let baseURL: String
    let transport: any RiderTransport
    let timeout: Duration

    public init(baseURL: String, transport: any RiderTransport = HTTPRiderTransport(), timeout: Duration = .seconds(10))
    {
        self.baseURL = baseURL
        self.transport = transport
        self.timeout = timeout
    }

    /// The server answers the same for every well-formed phone, a person's or not: a code comes by SMS if it is one.
    public func requestCode(phone: String) async throws {
        let _: NoContent = try await open.call(.POST, "/api/v1/auth/code", json: ["phone": phone])
    }

    public func signIn(phone: String, code: String) async throws -> SignInTokens {
        try await open.call(.POST, "/api/v1/auth/token", json: ["phone": phone, "code": code])
    }

    /// New tokens for the refresh token, which is spent: using it twice ends the session.
    public func refresh(_ refreshToken: String) async throws -> SignInTokens {
        try await open.call(.POST, "/api/v1/auth/refresh", json: ["refreshToken": refreshToken])
    }

    public func logout(accessToken: String) async throws {
        let connection = APIConnection(
            baseURL: baseURL, token: { accessToken }, transport: transport, timeout: timeout)
        let _: NoContent = try await connection.call(.POST, "/api/v1/auth/logout")
    }

    private var open: APIConnection {
        APIConnection(baseURL: baseURL, token: { nil }, transport: transport, timeout: timeout)
    }
}

/// What signing in gives: an access token for the API, the refresh token that renews it, and who signed in.
public struct SignInTokens: Decodable, Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    /// Seconds the access token lasts.
    public var expiresIn: Int
    public var role: String
    public var subject: String
    public var personId: String
    public var sessionId: String
    public var name: String
}
