import AsyncHTTPClient
import Foundation
import JWTKit
import LogisticsCore
import NIOCore
import NIOHTTP1

/// The parts of a Google service-account JSON file that FCM needs. Read from configuration, never logged.
struct GoogleServiceAccount: Decodable, Sendable {
    var projectId: String
    var clientEmail: String
    var privateKey: String
    var tokenURI: String

    enum CodingKeys: String, CodingKey {
        case projectId = "project_id"
        case clientEmail = "client_email"
        case privateKey = "private_key"
        case tokenURI = "token_uri"
    }

    static func load(path: String) throws -> GoogleServiceAccount {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ConfigurationError("cannot read the FCM service-account file \(path)")
        }
        do {
            return try JSONDecoder().decode(GoogleServiceAccount.self, from: data)
        } catch {
            throw ConfigurationError(
                "\(path) is not a Google service-account JSON file (needs project_id, client_email, private_key, "
                    + "token_uri)")
        }
    }
}

/// OAuth2 access tokens for FCM: a JWT assertion signed with the service account's key, exchanged at its
/// `token_uri`, and reused until a minute before it expires.
actor GoogleAccessTokens {
    private struct Assertion: JWTPayload {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int
        var exp: Int
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    private struct TokenResponse: Decodable {
        var accessToken: String
        var expiresIn: Int?
        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
        }
    }

    struct ExchangeFailed: Error, CustomStringConvertible {
        var description: String
        var retryAfter: TimeInterval?
    }

    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    private let account: GoogleServiceAccount
    private let keys: JWTKeyCollection
    private let http: HTTPClient
    private let clock: any WallClock
    private var cached: (token: String, expiresAt: Date)?
    /// The exchange in flight, so concurrent sends wait for one token instead of each fetching their own.
    private var exchanging: Task<(token: String, expiresAt: Date), any Error>?

    init(account: GoogleServiceAccount, http: HTTPClient, clock: any WallClock) async throws {
        let key: Insecure.RSA.PrivateKey
        do { key = try Insecure.RSA.PrivateKey(pem: account.privateKey) } catch {
            throw ConfigurationError("the FCM service account's private_key is not an RSA private key (PEM)")
        }
        let keys = JWTKeyCollection()
        await keys.add(rsa: key, digestAlgorithm: .sha256)
        self.account = account
        self.keys = keys
        self.http = http
        self.clock = clock
    }

    func token() async throws -> String {
        if let cached, cached.expiresAt.timeIntervalSince(clock.now()) > 60 { return cached.token }
        if let exchanging { return try await exchanging.value.token }
        let exchange = Task { try await self.exchange() }
        exchanging = exchange
        defer { exchanging = nil }
        let fresh = try await exchange.value
        cached = fresh
        return fresh.token
    }

    private nonisolated func exchange() async throws -> (token: String, expiresAt: Date) {
        let now = clock.now()
        let issuedAt = Int(now.timeIntervalSince1970)
        let assertion = try await keys.sign(
            Assertion(
                iss: account.clientEmail, scope: Self.scope, aud: account.tokenURI, iat: issuedAt,
                exp: issuedAt + 3600))
        var request = HTTPClientRequest(url: account.tokenURI)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await http.execute(request, timeout: .seconds(15))
        let body = await ProviderResponse.body(response)
        guard response.status == .ok,
            let decoded = try? JSONDecoder().decode(TokenResponse.self, from: Data(buffer: body))
        else {
            throw ExchangeFailed(
                description: "OAuth2 token exchange failed: " + ProviderResponse.describe(response.status, body),
                retryAfter: ProviderResponse.retryAfter(response.headers, now: now))
        }
        return (decoded.accessToken, now.addingTimeInterval(TimeInterval(decoded.expiresIn ?? 3600)))
    }

    /// Forgets the cached token (FCM answered 401 with it).
    func invalidate() { cached = nil }
}
