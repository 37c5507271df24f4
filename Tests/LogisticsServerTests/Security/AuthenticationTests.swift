import Foundation
import JWTKit
import LogisticsCore
import LogisticsServer
import Testing

@testable import TestSupport

@Suite("Authentication and roles", .timeLimit(.minutes(3)))
struct AuthenticationTests {
    static let secret = "test-secret-that-is-long-enough-for-production-use"

    struct LooseClaims: JWTPayload {
        var sub: String
        var role: String
        var iss: String
        var aud: String
        var exp: Double
        var iat: Double
        var nbf: Double?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static func sign(_ claims: LooseClaims, secret: String = secret) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return try await keys.sign(claims)
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func claims(
        role: String = "dispatcher", iss: String = "rider-logistics", aud: String = "rider-logistics-api",
        expiresIn: Double = 3600, issuedAgo: Double = 0, notBeforeIn: Double? = nil, now: Date = Date()
    ) -> LooseClaims {
        let t = now.timeIntervalSince1970
        return LooseClaims(
            sub: UUID().uuidString.lowercased(), role: role, iss: iss, aud: aud, exp: t + expiresIn,
            iat: t - issuedAgo, nbf: notBeforeIn.map { t + $0 })
    }

    @Test("every kind of bad token is 401 UNAUTHENTICATED and changes nothing", arguments: StoreKind.available)
    func badTokens(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let now = server.clock.now()
            let valid = try await Self.sign(Self.claims(now: now))
            let parts = valid.split(separator: ".").map(String.init)
            let noneToken = Self.base64URL(#"{"alg":"none","typ":"JWT"}"#) + "." + parts[1] + "."
            let rsHeader = Self.base64URL(#"{"alg":"RS256","typ":"JWT"}"#) + "." + parts[1] + "." + parts[2]
            let cases: [(String, String?)] = [
                ("missing", nil),
                ("not bearer", "Basic dXNlcjpwYXNz"),
                ("malformed", "Bearer not-a-jwt"),
                ("expired", "Bearer " + (try await Self.sign(Self.claims(expiresIn: -600, issuedAgo: 4000, now: now)))),
                ("not yet valid", "Bearer " + (try await Self.sign(Self.claims(notBeforeIn: 600, now: now)))),
                ("issued in the future", "Bearer " + (try await Self.sign(Self.claims(issuedAgo: -600, now: now)))),
                ("wrong issuer", "Bearer " + (try await Self.sign(Self.claims(iss: "someone-else", now: now)))),
                ("wrong audience", "Bearer " + (try await Self.sign(Self.claims(aud: "another-api", now: now)))),
                (
                    "wrong signature",
                    "Bearer "
                        + (try await Self.sign(Self.claims(now: now), secret: "another-secret-entirely-000000000"))
                ),
                ("alg none", "Bearer " + noneToken),
                ("algorithm confusion", "Bearer " + rsHeader),
                (
                    "tampered payload",
                    "Bearer " + parts[0] + "." + Self.base64URL(#"{"role":"admin"}"#) + "." + parts[2]
                ),
                ("unknown role", "Bearer " + (try await Self.sign(Self.claims(role: "superuser", now: now)))),
            ]
            for (name, header) in cases {
                var headers: [String: String] = [:]
                if let header { headers["Authorization"] = header }
                let reply = try await server.send(
                    .post, "/api/v1/orders", json: Fixtures.order(), headers: headers)
                #expect(reply.status == 401, "\(name)")
                #expect(reply.code == "UNAUTHENTICATED", "\(name)")
                #expect(reply.contentType == "application/problem+json", "\(name)")
            }
            #expect(try await server.count("orders") == 0)
            let ok = try await server.send(.get, "/api/v1/orders", headers: ["Authorization": "Bearer " + valid])
            #expect(ok.status == 200)
        }
    }

    @Test("roles are enforced with 403 FORBIDDEN", arguments: StoreKind.available)
    func roles(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let rider = try await server.token(.rider)
            let customer = try await server.token(.customer)
            let vendor = try await server.token(.vendor)
            let checks: [(String, Reply)] = [
                (
                    "rider creates order",
                    try await server.send(.post, "/api/v1/orders", token: rider, json: Fixtures.order())
                ),
                (
                    "customer creates order",
                    try await server.send(.post, "/api/v1/orders", token: customer, json: Fixtures.order())
                ),
                // A store lists its own orders (the store's page); a customer lists none.
                ("customer lists all orders", try await server.send(.get, "/api/v1/orders", token: customer)),
                (
                    "vendor sets rider availability",
                    try await server.send(.put, "/api/v1/rider/availability", token: vendor, json: ["status": "ONLINE"])
                ),
                (
                    "rider suspends a rider",
                    try await server.send(.post, "/api/v1/riders/\(UUID())/suspend", token: rider)
                ),
            ]
            for (name, reply) in checks {
                #expect(reply.status == 403, "\(name)")
                #expect(reply.code == "FORBIDDEN", "\(name)")
            }
            #expect(try await server.count("orders") == 0)
        }
    }

    @Test(
        "riders are provisioned on first use; a suspended rider is refused until reinstated",
        arguments: StoreKind.available)
    func suspension(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let riderId = UUID()
            let rider = try await server.token(.rider, riderId, name: "Ravi Kumar")
            let me = try await server.send(.get, "/api/v1/rider/me", token: rider)
            #expect(me.status == 200)
            #expect(me["availability"] as? String == "OFFLINE")
            #expect(me["name"] as? String == "Ravi Kumar")
            let online = try await server.send(
                .put, "/api/v1/rider/availability", token: rider, json: ["status": "ONLINE"])
            #expect(online["availability"] as? String == "ONLINE")

            let admin = try await server.token(.admin)
            let suspended = try await server.send(
                .post, "/api/v1/riders/\(riderId.uuidString.lowercased())/suspend", token: admin)
            #expect(suspended["suspended"] as? Bool == true)
            let refused = try await server.send(.get, "/api/v1/rider/me", token: rider)
            #expect(refused.status == 403)
            #expect(refused.code == "FORBIDDEN")
            _ = try await server.send(
                .post, "/api/v1/riders/\(riderId.uuidString.lowercased())/reinstate", token: admin)
            #expect(try await server.send(.get, "/api/v1/rider/me", token: rider).status == 200)
            let unknown = try await server.send(.post, "/api/v1/riders/\(UUID())/suspend", token: admin)
            #expect(unknown.code == "NOT_FOUND")
        }
    }

    @Test(
        "a suspension made elsewhere: trusted 30 s, then one request let through while the rider is read again in the background, then refused; after 5 min unseen, refused at once",
        arguments: StoreKind.available)
    func suspensionFromAnotherInstance(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let riderId = UUID()
            let rider = try await server.token(.rider, riderId)
            #expect(try await server.send(.get, "/api/v1/rider/me", token: rider).status == 200)
            // What another instance's suspend writes; this instance's cache does not hear of it.
            try await server.database.query(
                "UPDATE riders SET suspended = ? WHERE id = ?", [.bool(true), .uuid(riderId)])
            #expect(try await server.send(.get, "/api/v1/rider/me", token: rider).status == 200, "within 30 s")
            server.clock.advance(by: 31)
            #expect(try await server.send(.get, "/api/v1/rider/me", token: rider).status == 200, "let through once")
            var refused = false
            for _ in 0..<50 where !refused {
                refused = try await server.send(.get, "/api/v1/rider/me", token: rider).status == 403
                if !refused { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(refused, "refused once the background read saw the suspension")

            let other = UUID()
            let otherToken = try await server.token(.rider, other)
            #expect(try await server.send(.get, "/api/v1/rider/me", token: otherToken).status == 200)
            try await server.database.query(
                "UPDATE riders SET suspended = ? WHERE id = ?", [.bool(true), .uuid(other)])
            server.clock.advance(by: 301)
            #expect(try await server.send(.get, "/api/v1/rider/me", token: otherToken).status == 403)
        }
    }

    @Test("a token that expires 300 million years ahead, or at 1e300, opens sockets without trapping the server")
    func farFutureExpiry() async throws {
        try await TestServer.run(.sqlite, mode: .live) { server in
            for seconds in [3e8 * 365.25 * 86_400, 1e300] {
                let token = try await Self.sign(Self.claims(expiresIn: seconds, now: server.clock.now()))
                let socket = TrackingFollower(port: server.port, path: "/api/v1/dispatch/stream", token: token)
                try await socket.wait { $0.contains { $0["type"] as? String == "ready" } }
                let reply = try await server.send(.get, "/api/v1/orders", headers: ["Authorization": "Bearer \(token)"])
                #expect(reply.status == 200)
            }
            #expect(try await server.send(.get, "/health/live").status == 200)
        }
    }

    @Test("RS256 tokens verify against a configured public key; HS256 tokens are then refused")
    func publicKeyVerification() async throws {
        let privateKey = try Insecure.RSA.PrivateKey(pem: TestKeys.rsaPrivate)
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("rs256-\(UUID()).pem")
        try TestKeys.rsaPublic.write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        try await TestServer.run(
            .sqlite,
            configure: {
                $0.tokens.publicKeyFile = keyFile.path
                $0.tokens.otpSecret = "otp-secret"
            }
        ) { server in
            let signer = JWTKeyCollection()
            await signer.add(rsa: privateKey, digestAlgorithm: .sha256)
            let token = try await signer.sign(Self.claims(now: server.clock.now()))
            let ok = try await server.send(.get, "/api/v1/orders", headers: ["Authorization": "Bearer \(token)"])
            #expect(ok.status == 200)
            let hmac = try await Self.sign(Self.claims(now: server.clock.now()))
            let refused = try await server.send(.get, "/api/v1/orders", headers: ["Authorization": "Bearer \(hmac)"])
            #expect(refused.code == "UNAUTHENTICATED")
        }
    }
}
