import Foundation
import LogisticsCore
import NIOCore
import NIOSSL
import Synchronization
import Testing

@testable import LogisticsServer
@testable import LogisticsStore
@testable import TestSupport

/// Device and webhook registration refuse bad input with a problem document and store nothing.
@Suite("Devices and webhooks: bad input and other people's things", .timeLimit(.minutes(3)))
struct NotificationInputTests {
    @Test(
        "device registration validates every field and is only for riders and customers", arguments: StoreKind.available
    )
    func devices(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let customerId = UUID()
            let customer = try await server.token(.customer, customerId)
            let path = "/api/v1/me/devices/pixel-8"
            let cases: [([String: Any], String)] = [
                (["platform": "blackberry", "pushToken": "t"], "platform"),
                (["platform": "android"], "pushToken"),
                (["platform": "android", "pushToken": " "], "pushToken"),
                (["platform": "android", "pushToken": 42], "pushToken"),
                (["platform": "ios", "pushToken": "t", "locale": "english please"], "locale"),
                (["platform": "ios", "pushToken": String(repeating: "x", count: 5000)], "pushToken"),
            ]
            for (body, field) in cases {
                let reply = try await server.send(.put, path, token: customer, json: body)
                #expect(reply.status == 400, "\(body)")
                #expect(reply.code == "VALIDATION_FAILED")
                #expect(reply.contentType == "application/problem+json")
                #expect(ValidationTests.fields(reply) == [field], "\(body)")
            }
            let badId = try await server.send(
                .put, "/api/v1/me/devices/\(String(repeating: "d", count: 200))", token: customer,
                json: ["platform": "ios", "pushToken": "t"])
            #expect(ValidationTests.fields(badId) == ["deviceId"])
            let malformed = try await server.send(
                .put, path, token: customer, raw: Data("{\"platform\":".utf8), contentType: "application/json")
            #expect(malformed.code == "VALIDATION_FAILED")
            let notJSON = try await server.send(
                .put, path, token: customer, raw: Data("x".utf8), contentType: "text/plain")
            #expect(notJSON.code == "UNSUPPORTED_MEDIA_TYPE")
            let dispatcher = try await server.token(.dispatcher)
            let forbidden = try await server.send(
                .put, path, token: dispatcher, json: ["platform": "ios", "pushToken": "t"])
            #expect(forbidden.status == 403)
            #expect(forbidden.code == "FORBIDDEN")
            let anonymous = try await server.send(.put, path, json: ["platform": "ios", "pushToken": "t"])
            #expect(anonymous.code == "UNAUTHENTICATED")
            #expect(try await server.count("devices") == 0)

            let ok = try await server.send(
                .put, path, token: customer, json: ["platform": "android", "pushToken": "token-1", "locale": "hi-IN"])
            #expect(ok.status == 200)
            #expect(ok["deviceId"] as? String == "pixel-8")
            #expect(ok["locale"] as? String == "hi-IN")
            #expect(ok["pushToken"] == nil)
            // A client percent-encoding ':' in the path names the same install (schemathesis's did, and got 400).
            let encoded = try await server.send(
                .put, "/api/v1/me/devices/fcm%3Apixel", token: customer,
                json: ["platform": "android", "pushToken": "t-2"])
            #expect(encoded.status == 200 && encoded["deviceId"] as? String == "fcm:pixel", "\(encoded.text)")
            let removed = try await server.send(.delete, "/api/v1/me/devices/fcm:pixel", token: customer)
            #expect(removed.status == 204)
            // Registering again updates the same device.
            let again = try await server.send(
                .put, path, token: customer, json: ["platform": "android", "pushToken": "token-2"])
            #expect(again.status == 200)
            #expect(try await server.count("devices") == 1)

            // The phone changes hands: another customer signs in on it and the token follows them.
            let otherId = UUID()
            let other = try await server.token(.customer, otherId)
            let moved = try await server.send(
                .put, "/api/v1/me/devices/shared", token: other, json: ["platform": "android", "pushToken": "token-2"])
            #expect(moved.status == 200)
            #expect(try await server.count("devices", "owner_id = ?", [.text(customerId.lowercased)]) == 0)
            #expect(try await server.count("devices", "owner_id = ?", [.text(otherId.lowercased)]) == 1)

            // Another user's device id is not yours to delete.
            #expect(try await server.send(.delete, "/api/v1/me/devices/shared", token: customer).status == 404)
            #expect(try await server.send(.delete, "/api/v1/me/devices/shared", token: other).status == 204)
            let gone = try await server.send(.delete, "/api/v1/me/devices/shared", token: other)
            #expect(gone.status == 404)
            #expect(gone.code == "NOT_FOUND")
        }
    }

    @Test(
        "webhook registration validates its URL, events and secret, and is for admins only",
        arguments: StoreKind.available)
    func webhooks(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let admin = try await server.token(.admin)
            let good: [String: Any] = [
                "url": "https://oms.example.com/hooks", "events": ["*"], "secret": "0123456789abcdef",
            ]
            func with(_ key: String, _ value: Any?) -> [String: Any] {
                var body = good
                body[key] = value
                return body
            }
            let cases: [([String: Any], [String])] = [
                (with("url", "ftp://oms.example.com"), ["url"]),
                (with("url", "not a url"), ["url"]),
                (with("url", "https://user:pw@oms.example.com/"), ["url"]),
                (with("events", []), ["events"]),
                (with("events", ["OrderAssigned", "OrderTeleported"]), ["events[1]"]),
                (with("secret", "short"), ["secret"]),
                (with("secret", nil), ["secret"]),
                (with("events", "OrderAssigned"), ["events"]),
            ]
            for (body, fields) in cases {
                let reply = try await server.send(.post, "/api/v1/webhooks", token: admin, json: body)
                #expect(reply.status == 400, "\(body)")
                #expect(reply.code == "VALIDATION_FAILED")
                #expect(ValidationTests.fields(reply) == fields, "\(body)")
            }
            for role in [Role.dispatcher, .customer, .rider, .vendor] {
                let reply = try await server.send(
                    .post, "/api/v1/webhooks", token: try await server.token(role), json: good)
                #expect(reply.status == 403)
                #expect(
                    try await server.send(.get, "/api/v1/webhooks", token: try await server.token(role)).status == 403)
            }
            #expect(try await server.count("webhooks") == 0)
            #expect(try await server.send(.post, "/api/v1/webhooks", token: admin, json: good).status == 201)
            #expect(try await server.send(.delete, "/api/v1/webhooks/\(UUID().lowercased)", token: admin).status == 404)
            #expect(try await server.send(.delete, "/api/v1/webhooks/nope", token: admin).code == "VALIDATION_FAILED")
            let redeliver = try await server.send(.post, "/api/v1/webhooks/dead-letters/abc/redeliver", token: admin)
            #expect(redeliver.code == "VALIDATION_FAILED")
            #expect(
                try await server.send(.post, "/api/v1/webhooks/dead-letters/999/redeliver", token: admin).status == 404)
        }
    }

    @Test("outside development, webhooks must be public HTTPS hosts")
    func webhookAddresses() {
        for url in [
            "http://oms.example.com/hooks", "https://localhost/x", "https://127.0.0.1/x", "https://10.1.2.3/x",
            "https://192.168.0.10/x", "https://172.20.0.1/x", "https://169.254.169.254/latest", "https://[::1]/x",
            "https://[fd00::1]/x", "https://db.internal/x", "https://printer.local/x",
            // Other spellings of loopback the system resolver accepts, multicast, link-local v6, a trailing dot.
            "https://127.1/x", "https://2130706433/x", "https://0x7f000001/x", "https://[::ffff:127.0.0.1]/x",
            "https://224.0.0.1/x", "https://[fe80::1]/x", "https://localhost./x",
        ] {
            #expect(WebhookAddress.problem(with: url, allowPrivate: false) != nil, "\(url)")
        }
        for url in ["https://oms.example.com/hooks", "https://203.0.113.7:8443/x", "https://172.32.0.1/x"] {
            #expect(WebhookAddress.problem(with: url, allowPrivate: false) == nil, "\(url)")
        }
        #expect(WebhookAddress.problem(with: "http://127.0.0.1:9000/hooks", allowPrivate: true) == nil)
    }

    /// A webhook event as the sender gets it, to `target`.
    static func webhookEvent(_ target: String) -> PendingNotification {
        PendingNotification(
            id: 1, channel: .webhook, target: target, destinationId: "w", locale: nil, attempts: 0,
            budgetFrom: Date(), eventId: UUID(), orderId: UUID(), topic: "order.event", title: nil, body: nil,
            textKey: nil, textArguments: [:], payload: "{}", webhookSecret: "0123456789abcdef")
    }

    static func sender(_ connection: WebhookConnection) -> WebhookSender {
        WebhookSender(
            concurrency: 1, connection: connection, clock: ManualWallClock(),
            sealer: SecretSealer(serverSecret: [1, 2, 3]))
    }

    @Test("outside development, a webhook whose host resolves to a private address is refused when it is called")
    func webhookResolvedAddresses() async throws {
        let system = Self.sender(WebhookConnection(allowPrivateAddresses: false))
        let outcome = await system.send(Self.webhookEvent("https://localhost:9/hooks"))
        // localhost may answer ::1 before 127.0.0.1, depending on the machine's hosts file.
        #expect(
            outcome == .rejected(reason: "localhost resolves to the private address 127.0.0.1")
                || outcome == .rejected(reason: "localhost resolves to the private address ::1"), "\(outcome)")
        // A name with a public and a private address is refused, before any connection.
        let mixed = Self.sender(
            WebhookConnection(allowPrivateAddresses: false) { _, port in
                [
                    try SocketAddress(ipAddress: "203.0.113.7", port: port),
                    try SocketAddress(ipAddress: "10.1.2.3", port: port),
                ]
            })
        #expect(
            await mixed.send(Self.webhookEvent("https://hooks.example.test/x"))
                == .rejected(reason: "hooks.example.test resolves to the private address 10.1.2.3"))
        for address in ["::a01:203", "64:ff9b::a01:203", "2002:a01:203::1", "fec0::1", "2001:db8::1", "2001::1"] {
            let bytes = try #require(WebhookAddress.numericAddress(address))
            #expect(WebhookAddress.isPrivate(address: bytes), "\(address)")
        }
        #expect(!WebhookAddress.isPrivate(address: try #require(WebhookAddress.numericAddress("2606:4700::1111"))))
    }

    @Test("a webhook is sent to the address its name resolved to for the check: one lookup, no second answer")
    func webhookPinnedAddress() async throws {
        let fake = try FakeProviders()
        try await fake.run { port in
            let lookups = Mutex(0)
            // The first answer is the receiver; a second lookup would get an address nobody listens on.
            let connection = WebhookConnection(allowPrivateAddresses: true) { host, port in
                let count = lookups.withLock {
                    $0 += 1
                    return $0
                }
                #expect(host == "hooks.example.test")
                return [try SocketAddress(ipAddress: count == 1 ? "127.0.0.1" : "10.255.255.1", port: port)]
            }
            let outcome = await Self.sender(connection).send(
                Self.webhookEvent("http://hooks.example.test:\(port)/hooks/pinned"))
            #expect(outcome == .delivered(providerId: nil))
            #expect(lookups.withLock { $0 } == 1)
            let hook = try #require(fake.snapshot.hooks.first { $0.name == "pinned" })
            #expect(hook.headers["host"] == "hooks.example.test:\(port)")
        }
    }

    @Test("over HTTPS the receiver's certificate must be trusted and name the webhook's host (or the address checked)")
    func webhookCertificate() async throws {
        let fake = try FakeProviders()
        try await fake.run { _ in
            let port = fake.state.withLock { $0.apnsPort }
            let root = try NIOSSLCertificate(bytes: Array(FakeAPNsCertificate.certificate.utf8), format: .pem)
            let loopback: WebhookConnection.Resolver = { _, port in
                [try SocketAddress(ipAddress: "127.0.0.1", port: port)]
            }
            // The fake's certificate names localhost: trusted, a receiver there answers (its 404 is an HTTP answer).
            let trusting = WebhookConnection(allowPrivateAddresses: true, trusting: [root], resolve: loopback)
            let named = await Self.sender(trusting).send(Self.webhookEvent("https://localhost:\(port)/hooks/x"))
            guard case .retry(let reason, _) = named else {
                Issue.record("\(named)")
                return
            }
            #expect(reason.hasPrefix("HTTP 404"), "\(reason)")
            // Not trusted: nothing is sent.
            let strict = WebhookConnection(allowPrivateAddresses: true, resolve: loopback)
            let untrusted = await Self.sender(strict).send(Self.webhookEvent("https://localhost:\(port)/hooks/x"))
            guard case .retry(let failure, _) = untrusted else {
                Issue.record("\(untrusted)")
                return
            }
            #expect(failure.hasPrefix("webhook unreachable"), "\(failure)")
        }
    }
}
