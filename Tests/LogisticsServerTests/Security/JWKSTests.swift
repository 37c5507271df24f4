import Foundation
import JWTKit
import LogisticsCore
import LogisticsServer
import Testing

@testable import TestSupport

/// A JWKS key is bound to one algorithm when it is loaded: a token's header cannot choose another one for it.
@Suite("JWKS keys and token headers", .timeLimit(.minutes(3)))
struct JWKSTests {
    static let keyID = "key-2026"

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A JWKS file with the test RSA key, its `alg` given or left out.
    static func jwksFile(alg: String?) throws -> URL {
        let publicKey = try Insecure.RSA.PublicKey(pem: TestKeys.rsaPublic)
        let (modulus, exponent) = try publicKey.getKeyPrimitives()
        var key: [String: String] = [
            "kty": "RSA", "kid": keyID, "use": "sig", "n": base64URL(modulus), "e": base64URL(exponent),
        ]
        key["alg"] = alg
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID()).json")
        try JSONSerialization.data(withJSONObject: ["keys": [key]]).write(to: file)
        return file
    }

    static func signedRS256(now: Date, header: String? = nil) async throws -> String {
        let signer = JWTKeyCollection()
        await signer.add(
            rsa: try Insecure.RSA.PrivateKey(pem: TestKeys.rsaPrivate), digestAlgorithm: .sha256,
            kid: JWKIdentifier(string: keyID))
        let token = try await signer.sign(AuthenticationTests.claims(now: now), kid: JWKIdentifier(string: keyID))
        guard let header else { return token }
        // Same payload and RS256 signature bytes under another header: what an attacker can send.
        let parts = token.split(separator: ".").map(String.init)
        return AuthenticationTests.base64URL(header) + "." + parts[1] + "." + parts[2]
    }

    @Test("a JWKS key without alg is refused at start, unless LOGISTICS_JWT_ALGORITHM names one")
    func keyWithoutAlgorithm() async throws {
        let file = try Self.jwksFile(alg: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        var configuration = ServerConfiguration()
        configuration.tokens.publicKeyFile = file.path
        await #expect {
            _ = try await AccessTokenVerifier.make(configuration: configuration, secret: nil, clock: SystemWallClock())
        } throws: { error in
            "\(error)".contains("names no alg") && "\(error)".contains(Self.keyID)
        }
        configuration.tokens.publicKeyAlgorithm = "RS256"
        let verifier = try await AccessTokenVerifier.make(
            configuration: configuration, secret: nil, clock: SystemWallClock())
        let actor = try await verifier.actor(fromBearer: try await Self.signedRS256(now: Date()))
        #expect(actor.role == .dispatcher)

        let environment = ["LOGISTICS_JWT_ALGORITHM": "HS256"]
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.fromEnvironment(environment) }
    }

    @Test("a header that repeats alg, or names another algorithm or key, is 401 and the real tokens keep working")
    func forgedHeaders() async throws {
        for alg in ["RS256", nil] {
            let file = try Self.jwksFile(alg: alg)
            defer { try? FileManager.default.removeItem(at: file) }
            try await TestServer.run(
                .sqlite,
                configure: {
                    $0.tokens.publicKeyFile = file.path
                    $0.tokens.publicKeyAlgorithm = alg == nil ? "RS256" : nil
                    $0.tokens.otpSecret = "otp-secret"
                }
            ) { server in
                let now = server.clock.now()
                let real = try await Self.signedRS256(now: now)
                let forged = [
                    #"{"alg":"PS256","kid":"key-2026","alg":"RS256"}"#,
                    #"{"alg":"RS256","kid":"key-2026","alg":"PS256"}"#,
                    #"{"alg":"PS256","kid":"key-2026"}"#,
                    #"{"alg":"RS512","kid":"key-2026"}"#,
                    #"{"alg":"RS256","kid":"key-2026","kid":"other"}"#,
                    #"{"alg":"RS256","kid":"another-key"}"#,
                    #"{"al\u0067":"PS256","alg":"RS256","kid":"key-2026"}"#,
                    #"{"alg":"none","kid":"key-2026"}"#,
                    #"{"alg":"HS256","kid":"key-2026"}"#,
                    #"["alg","RS256"]"#,
                ]
                for header in forged {
                    let token = try await Self.signedRS256(now: now, header: header)
                    let response = try await server.send(
                        .get, "/api/v1/orders", headers: ["Authorization": "Bearer \(token)"])
                    #expect(response.status == 401, "\(header)")
                    #expect(response.code == "UNAUTHENTICATED", "\(header)")
                    // A fresh real token after each forged one: the forged header must not have changed the key.
                    let fresh = try await Self.signedRS256(now: now)
                    let ok = try await server.send(
                        .get, "/api/v1/orders", headers: ["Authorization": "Bearer \(fresh)"])
                    #expect(ok.status == 200, "after \(header)")
                }
                let ok = try await server.send(.get, "/api/v1/orders", headers: ["Authorization": "Bearer \(real)"])
                #expect(ok.status == 200)
            }
        }
    }
}
