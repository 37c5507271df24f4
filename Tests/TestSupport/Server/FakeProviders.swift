import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdHTTP2
import HummingbirdTesting
import JWTKit
import Logging
import LogisticsServer
import NIOCore
import Synchronization
import Testing

/// Local stand-ins for Google's OAuth2 token endpoint and FCM, Apple's APNs, and webhook receivers. They check
/// what the real services check (the assertion's RS256 signature and claims, the APNs ES256 token and headers),
/// record every request, and answer from a script per push token or webhook name (200 once the script is empty).
final class FakeProviders: Sendable {
    struct Reply: Sendable {
        var status: HTTPResponse.Status
        var body: String = "{}"
        var retryAfter: String? = nil
        var location: String? = nil
    }

    struct Push: Sendable {
        var token: String
        var title: String
        var body: String
        var data: [String: String]
        /// The OAuth access token (FCM) or the provider JWT's `iat` (APNs) the request came with.
        var credential: String
        var headers: [String: String]
    }

    struct Hook: Sendable {
        var name: String
        var headers: [String: String]
        var body: [UInt8]
        var answered: HTTPResponse.Status
    }

    struct State: Sendable {
        var tokenExchanges = 0
        var issuedTokens: Set<String> = []
        var fcm: [Push] = []
        var apns: [Push] = []
        var hooks: [Hook] = []
        var scripts: [String: [Reply]] = [:]
        /// Anything a real provider would have refused; a test expects none.
        var violations: [String] = []
        var apnsPort = 0
    }

    static let projectId = "rider-logistics-test"
    static let clientEmail = "pusher@rider-logistics-test.iam.gserviceaccount.com"
    static let apnsKeyId = "ABC123DEFG"
    static let apnsTeamId = "TEAM123456"
    static let apnsTopic = "com.riderlogistics.customer"

    let state = Mutex(State())
    let apnsKey = P256.Signing.PrivateKey()
    private let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fake-providers-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var snapshot: State { state.withLock { $0 } }

    /// Queues answers for a push token or webhook name, used before the default 200.
    func script(_ target: String, _ replies: Reply...) { script(target, replies) }

    func script(_ target: String, _ replies: [Reply]) {
        state.withLock { $0.scripts[target, default: []] += replies }
    }

    /// From now on the target answers 200 again.
    func recover(_ target: String) { state.withLock { $0.scripts[target] = nil } }

    /// Polls until `condition` holds (sends happen in the background), failing after `timeout`.
    func wait(
        _ what: String, timeout: Duration = .seconds(20), until condition: @escaping @Sendable (State) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(snapshot) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestServer.NoAnswer(description: "fake providers: gave up waiting for \(what)")
    }

    /// Server settings pointing FCM and APNs at this fake listening on `port`.
    func settings(port: Int) throws -> @Sendable (inout ServerConfiguration) -> Void {
        let account: [String: String] = [
            "type": "service_account", "project_id": Self.projectId, "client_email": Self.clientEmail,
            "private_key": TestKeys.rsaPrivate, "token_uri": "http://127.0.0.1:\(port)/token",
        ]
        let accountFile = directory.appendingPathComponent("service-account-\(port).json")
        try JSONSerialization.data(withJSONObject: account).write(to: accountFile)
        let keyFile = directory.appendingPathComponent("AuthKey_\(Self.apnsKeyId).p8")
        try apnsKey.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        let caFile = directory.appendingPathComponent("fake-apns-ca.pem")
        try FakeAPNsCertificate.certificate.write(to: caFile, atomically: true, encoding: .utf8)
        let apnsPort = snapshot.apnsPort
        return { configuration in
            configuration.notifications.fcmServiceAccountFile = accountFile.path
            configuration.notifications.fcmBaseURL = "http://127.0.0.1:\(port)"
            configuration.notifications.apnsKeyFile = keyFile.path
            configuration.notifications.apnsKeyId = Self.apnsKeyId
            configuration.notifications.apnsTeamId = Self.apnsTeamId
            configuration.notifications.apnsTopic = Self.apnsTopic
            configuration.notifications.apnsBaseURL = "https://localhost:\(apnsPort)"
            configuration.notifications.apnsCAFile = caFile.path
        }
    }

    /// A fake on its own port and a server whose providers point at it.
    static func withServer(
        _ kind: StoreKind, _ body: @escaping @Sendable (FakeProviders, TestServer, _ fakePort: Int) async throws -> Void
    ) async throws {
        let fake = try FakeProviders()
        try await fake.run { port in
            try await TestServer.run(kind, configure: try fake.settings(port: port)) { server in
                try await body(fake, server, port)
                #expect(fake.snapshot.violations == [], "requests a real provider would refuse")
            }
        }
    }

    /// Runs the fakes for the duration of `body`: OAuth2, FCM and webhooks over HTTP/1.1 on `port`, APNs over
    /// HTTP/2 with TLS (like Apple's) on a port of its own.
    func run(_ body: @escaping @Sendable (_ port: Int) async throws -> Void) async throws {
        var logger = Logger(label: "fake-providers")
        logger.logLevel = .critical
        let verifier = try await Verifier(apnsPublicKey: apnsKey.publicKey)
        let router = Router()
        router.post("/token") { request, context in try await self.exchange(request, verifier: verifier) }
        router.post("/v1/projects/{project}/{action}") { request, context in
            try await self.fcmSend(request, context: context)
        }
        router.post("/hooks/{name}") { request, context in try await self.hook(request, context: context) }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)

        let apnsRouter = Router(context: StreamContext.self)
        apnsRouter.post("/3/device/{token}") { request, context in
            try await self.apnsSend(request, context: context, verifier: verifier)
        }
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [
                .certificate(try NIOSSLCertificate(bytes: Array(FakeAPNsCertificate.certificate.utf8), format: .pem))
            ],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(FakeAPNsCertificate.key.utf8), format: .pem)))
        let apns = Application(
            router: apnsRouter, server: try .http2Upgrade(tlsConfiguration: tls),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        try await apns.test(.live) { apnsClient in
            self.state.withLock { $0.apnsPort = apnsClient.port! }
            try await app.test(.live) { client in try await body(client.port!) }
        }
    }
    // MARK: - Google OAuth2

    private func exchange(_ request: Request, verifier: Verifier) async throws -> Response {
        var request = request
        let form = String(buffer: try await request.collectBody(upTo: 64 * 1024))
        var fields: [String: String] = [:]
        for pair in form.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer",
            let assertion = fields["assertion"]
        else { return violation("token request without a jwt-bearer grant: \(form)", status: .badRequest) }
        do {
            let claims = try await verifier.google.verify(assertion, as: Verifier.GoogleAssertion.self)
            guard claims.iss == Self.clientEmail, claims.scope == "https://www.googleapis.com/auth/firebase.messaging",
                claims.aud.hasSuffix("/token"), claims.exp > claims.iat, claims.exp - claims.iat <= 3600
            else { return violation("assertion claims wrong: \(claims)", status: .badRequest) }
        } catch {
            return violation("assertion signature does not verify: \(error)", status: .badRequest)
        }
        let token = state.withLock { state -> String in
            state.tokenExchanges += 1
            let token = "ya29.fake-\(state.tokenExchanges)"
            state.issuedTokens.insert(token)
            return token
        }
        return json(.ok, #"{"access_token":"\#(token)","expires_in":3599,"token_type":"Bearer"}"#)
    }

    // MARK: - FCM

    private func fcmSend(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard context.parameters.get("project") == Self.projectId, context.parameters.get("action") == "messages:send"
        else { return violation("FCM path \(request.uri.path)", status: .notFound) }
        let bearer = request.headers[.authorization]?.replacingOccurrences(of: "Bearer ", with: "") ?? ""
        guard snapshot.issuedTokens.contains(bearer) else {
            return violation("FCM call with an access token never issued: \(bearer)", status: .unauthorized)
        }
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024)
        guard let document = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
            let message = document["message"] as? [String: Any], let token = message["token"] as? String,
            let notification = message["notification"] as? [String: String],
            let data = message["data"] as? [String: String]
        else { return violation("FCM body is not a v1 message: \(String(buffer: body))", status: .badRequest) }
        let push = Push(
            token: token, title: notification["title"] ?? "", body: notification["body"] ?? "", data: data,
            credential: bearer, headers: [:])
        state.withLock { $0.fcm.append(push) }
        return scripted(token)
    }

    // MARK: - APNs

    private func apnsSend(_ request: Request, context: StreamContext, verifier: Verifier) async throws -> Response {
        guard context.overHTTP2 else { return violation("APNs call over HTTP/1.1", status: .badRequest) }
        let token = context.parameters.get("token") ?? ""
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        guard let authorization = headers["authorization"], authorization.hasPrefix("bearer ") else {
            return violation("APNs call without a bearer provider token", status: .forbidden)
        }
        let jwt = String(authorization.dropFirst("bearer ".count))
        let header = Verifier.header(of: jwt)
        guard header["alg"] == "ES256", header["kid"] == Self.apnsKeyId else {
            return violation("APNs token header \(header)", status: .forbidden)
        }
        let claims: Verifier.APNsClaims
        do { claims = try await verifier.apple.verify(jwt, as: Verifier.APNsClaims.self) } catch {
            return violation("APNs token signature does not verify: \(error)", status: .forbidden)
        }
        guard claims.iss == Self.apnsTeamId else { return violation("APNs iss \(claims.iss)", status: .forbidden) }
        for (name, expected) in [
            ("apns-topic", Self.apnsTopic), ("apns-push-type", "alert"), ("apns-priority", "10"),
        ] where headers[name] != expected {
            return violation("APNs header \(name) is \(headers[name] ?? "missing")", status: .badRequest)
        }
        guard headers["apns-collapse-id"].map({ $0.utf8.count <= 64 }) == true else {
            return violation("APNs call without apns-collapse-id", status: .badRequest)
        }
        var request = request
        let body = try await request.collectBody(upTo: 4096)
        guard let document = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
            let aps = document["aps"] as? [String: Any], let alert = aps["alert"] as? [String: String]
        else { return violation("APNs payload without aps.alert: \(String(buffer: body))", status: .badRequest) }
        var data: [String: String] = [:]
        for key in ["orderId", "eventId", "status"] { data[key] = document[key] as? String }
        let push = Push(
            token: token, title: alert["title"] ?? "", body: alert["body"] ?? "", data: data,
            credential: String(claims.iat), headers: headers)
        state.withLock { $0.apns.append(push) }
        return scripted(token)
    }

    // MARK: - Webhooks

    private func hook(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let name = context.parameters.get("name") ?? ""
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        headers["host"] = request.head.authority
        var request = request
        let body = Array(buffer: try await request.collectBody(upTo: 64 * 1024))
        let reply = nextReply(name)
        state.withLock { $0.hooks.append(Hook(name: name, headers: headers, body: body, answered: reply.status)) }
        return response(reply)
    }

    // MARK: - Answers

    private func nextReply(_ target: String) -> Reply {
        state.withLock { state in
            guard var queue = state.scripts[target], !queue.isEmpty else { return Reply(status: .ok) }
            let reply = queue.removeFirst()
            state.scripts[target] = queue
            return reply
        }
    }

    private func scripted(_ target: String) -> Response { response(nextReply(target)) }

    private func response(_ reply: Reply) -> Response {
        var response = json(reply.status, reply.body)
        if let retryAfter = reply.retryAfter { response.headers[.retryAfter] = retryAfter }
        if let location = reply.location { response.headers[.location] = location }
        return response
    }

    private func violation(_ what: String, status: HTTPResponse.Status) -> Response {
        state.withLock { $0.violations.append(what) }
        return json(status, #"{"error":"fake provider refused the request"}"#)
    }

    private func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// The fakes' signature checks, with the public halves of the keys the server signs with.
struct Verifier: Sendable {
    struct GoogleAssertion: JWTPayload {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int
        var exp: Int
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    struct APNsClaims: JWTPayload {
        var iss: String
        var iat: Int
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    let google = JWTKeyCollection()
    let apple = JWTKeyCollection()

    init(apnsPublicKey: P256.Signing.PublicKey) async throws {
        await google.add(rsa: try Insecure.RSA.PublicKey(pem: TestKeys.rsaPublic), digestAlgorithm: .sha256)
        await apple.add(ecdsa: try ES256PublicKey(pem: apnsPublicKey.pemRepresentation))
    }

    /// A JWT's header fields, read without trusting them.
    static func header(of jwt: String) -> [String: String] {
        guard var part = jwt.split(separator: ".").first.map(String.init) else { return [:] }
        part = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while part.count % 4 != 0 { part += "=" }
        guard let data = Data(base64Encoded: part),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object.compactMapValues { $0 as? String }
    }
}

extension TestServer {
    /// Waits until every send in flight has its outcome recorded. The fakes see a request before the server
    /// records how it ended; moving the clock in between would time the retry from the moved clock.
    func notificationsSettled() async throws {
        for _ in 0..<400 {
            if try await count("notification_deliveries", "lease_owner IS NOT NULL") == 0 { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw NoAnswer(description: "notification sends still in flight after 10 s")
    }
}

/// A request context that knows whether the request came as an HTTP/2 stream (APNs speaks nothing else).
struct StreamContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let overHTTP2: Bool

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        overHTTP2 = String(describing: type(of: source.channel)).contains("HTTP2")
    }
}

/// The fake APNs' TLS identity: a self-signed certificate for localhost and 127.0.0.1, valid until 2126, made for
/// these tests only (`openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -days 36500`). The server
/// trusts it through `LOGISTICS_APNS_CA_FILE`.
enum FakeAPNsCertificate {
    static let certificate = """
        -----BEGIN CERTIFICATE-----
        MIIBmjCCAUGgAwIBAgIUUgdf/blMjvBBkuxwAMHKqcRZmnkwCgYIKoZIzj0EAwIw
        FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMzE4MDUwMloYDzIxMjYxMDMw
        MTgwNTAyWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
        PQMBBwNCAATPCZcCrBUEoc3dyq3+AyloSB5HtNFiJN8TbzS4VuAtO/GvhYX60xxf
        nyPuXksSj6cB1U1Awc5n4Dm8M6wwFhn0o28wbTAdBgNVHQ4EFgQU5zXwQR6+90jd
        O97SSBW/zwlRRBgwHwYDVR0jBBgwFoAU5zXwQR6+90jdO97SSBW/zwlRRBgwDwYD
        VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
        zj0EAwIDRwAwRAIgcqW5BqPWMOtjL4MEH8VJPEA2KGk8Tr0UlNbpR2Mzm5gCIH4z
        9UJFbvxXBjSuWGgcNCO94vbUnlJnsYsRfE27Bec2
        -----END CERTIFICATE-----

        """
    static let key = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg7JfRVNvNcicWNJra
        F7nG3vTWLYxC50C3g49h9S4q34mhRANCAATPCZcCrBUEoc3dyq3+AyloSB5HtNFi
        JN8TbzS4VuAtO/GvhYX60xxfnyPuXksSj6cB1U1Awc5n4Dm8M6wwFhn0
        -----END PRIVATE KEY-----

        """
}
