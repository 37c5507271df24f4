import Foundation
import LogisticsCore
import LogisticsServer
import Testing

@testable import TestSupport

/// Pushes through local fakes of FCM (with Google's OAuth2 token endpoint) and APNs.
@Suite("Push notifications through FCM and APNs", .timeLimit(.minutes(3)))
struct PushNotificationTests {
    /// Registers a device for the customer; returns nothing, expects 200.
    static func register(
        _ server: TestServer, _ token: String, device: String, platform: String, pushToken: String, locale: String?
    ) async throws {
        var body: [String: Any] = ["platform": platform, "pushToken": pushToken]
        if let locale { body["locale"] = locale }
        let reply = try await server.send(.put, "/api/v1/me/devices/\(device)", token: token, json: body)
        #expect(reply.status == 200, "\(reply.text)")
    }

    /// An order for the customer, cancelled at once: exactly one push ("Order cancelled") to the customer.
    static func cancelledOrder(_ server: TestServer, customerId: UUID) async throws -> String {
        let dispatcher = try await server.token(.dispatcher)
        let created = try await server.send(
            .post, "/api/v1/orders", token: dispatcher, json: Fixtures.order(customerId: customerId))
        let orderId = try #require(created["orderId"] as? String, "\(created.status) \(created.text)")
        let cancelled = try await server.send(
            .post, "/api/v1/orders/\(orderId)/cancel", token: dispatcher, json: ["reason": "test"])
        #expect(cancelled.status == 200, "\(cancelled.text)")
        return orderId
    }

    static func pushes(_ list: [FakeProviders.Push], to token: String) -> [FakeProviders.Push] {
        list.filter { $0.token == token }
    }

    @Test(
        "a whole delivery pushes the four customer notifications in order, in each device's language",
        arguments: StoreKind.available)
    func deliveryFlow(kind: StoreKind) async throws {
        try await FakeProviders.withServer(kind) { fake, server, _ in
            let scenario = try await DeliveryScenario.ready(server, podType: "OTP")
            try await Self.register(
                server, scenario.customer, device: "pixel-8", platform: "android", pushToken: "fcm-en", locale: "en-GB")
            try await Self.register(
                server, scenario.customer, device: "tablet", platform: "web", pushToken: "fcm-hi", locale: "hi-IN")
            try await Self.register(
                server, scenario.customer, device: "iphone", platform: "ios", pushToken: "apns-mr", locale: "mr")

            let (_, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            try await scenario.deliverWithCode(taskId, rider: rider)

            try await fake.wait("four pushes to each device") { state in
                Self.pushes(state.fcm, to: "fcm-en").count == 4 && Self.pushes(state.fcm, to: "fcm-hi").count == 4
                    && Self.pushes(state.apns, to: "apns-mr").count == 4
            }
            let state = fake.snapshot
            let english = Self.pushes(state.fcm, to: "fcm-en")
            #expect(english.map(\.title) == ["Rider assigned", "On its way", "Your rider has arrived!", "Delivered"])
            #expect(english[2].body == "Your rider has arrived!")
            #expect(english.allSatisfy { $0.data["orderId"] == scenario.orderId })
            #expect(Set(english.compactMap { $0.data["eventId"] }).count == 4)
            #expect(english.last?.data["status"] == "DELIVERED")
            #expect(english[1].data["status"] == "PICKED_UP")

            let hindi = Self.pushes(state.fcm, to: "fcm-hi")
            #expect(hindi.map(\.title)[2] == "आपका राइडर पहुँच गया है!")
            #expect(hindi.map(\.data) == english.map(\.data))
            let marathi = Self.pushes(state.apns, to: "apns-mr")
            #expect(marathi.map(\.title)[2] == "तुमचा रायडर पोहोचला आहे!")
            #expect(marathi.map(\.title)[0] == "रायडर नेमला")
            #expect(marathi.map(\.data) == english.map(\.data))
            #expect(marathi.allSatisfy { $0.headers["apns-collapse-id"] == scenario.orderId })
            // One OAuth2 exchange serves every FCM send while the access token is fresh.
            #expect(state.tokenExchanges == 1)
        }
    }

    @Test("access tokens are reused while fresh and renewed before they expire", arguments: StoreKind.available)
    func tokenRefresh(kind: StoreKind) async throws {
        try await FakeProviders.withServer(kind) { fake, server, _ in
            let customerId = UUID()
            let customer = try await server.token(.customer, customerId)
            try await Self.register(server, customer, device: "a", platform: "android", pushToken: "fcm-1", locale: nil)
            try await Self.register(server, customer, device: "i", platform: "ios", pushToken: "apns-1", locale: nil)
            for (round, advance) in [(1, 0.0), (2, 600.0), (3, 3600.0)] {
                try await server.notificationsSettled()
                server.clock.advance(by: advance)
                _ = try await Self.cancelledOrder(server, customerId: customerId)
                try await fake.wait("push round \(round)") { state in
                    state.fcm.count == round && state.apns.count == round
                }
            }
            let state = fake.snapshot
            #expect(state.tokenExchanges == 2)
            #expect(state.fcm[0].credential == state.fcm[1].credential)
            #expect(state.fcm[2].credential != state.fcm[1].credential)
            #expect(state.apns[0].credential == state.apns[1].credential)
            #expect(state.apns[2].credential != state.apns[1].credential)
            #expect(state.fcm.allSatisfy { $0.title == "Order cancelled" })
        }
    }

    @Test("a token FCM calls UNREGISTERED or APNs calls gone (410) is forgotten", arguments: StoreKind.available)
    func unregisteredTokens(kind: StoreKind) async throws {
        try await FakeProviders.withServer(kind) { fake, server, _ in
            fake.script(
                "fcm-gone",
                .init(
                    status: .notFound,
                    body: #"""
                        {"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND",
                        "details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}
                        """#))
            fake.script(
                "apns-gone", .init(status: .gone, body: #"{"reason":"Unregistered","timestamp":1700000000000}"#))
            let customerId = UUID()
            let customer = try await server.token(.customer, customerId)
            try await Self.register(
                server, customer, device: "old-phone", platform: "android", pushToken: "fcm-gone", locale: nil)
            try await Self.register(
                server, customer, device: "old-iphone", platform: "ios", pushToken: "apns-gone", locale: nil)
            try await Self.register(
                server, customer, device: "new-phone", platform: "android", pushToken: "fcm-live", locale: nil)
            _ = try await Self.cancelledOrder(server, customerId: customerId)
            try await fake.wait("one attempt each") { state in state.fcm.count == 2 && state.apns.count == 1 }
            var remaining = try await server.count("devices", "owner_id = ?", [.text(customerId.lowercased)])
            for _ in 0..<100 where remaining != 1 {
                try await Task.sleep(for: .milliseconds(50))
                remaining = try await server.count("devices", "owner_id = ?", [.text(customerId.lowercased)])
            }
            #expect(remaining == 1)

            _ = try await Self.cancelledOrder(server, customerId: customerId)
            try await fake.wait("the live device's second push") { state in
                Self.pushes(state.fcm, to: "fcm-live").count == 2
            }
            let state = fake.snapshot
            #expect(Self.pushes(state.fcm, to: "fcm-gone").count == 1)
            #expect(Self.pushes(state.apns, to: "apns-gone").count == 1)
        }
    }

    @Test(
        "429 waits out Retry-After, 5xx is retried with backoff, a permanent 400 is not", arguments: StoreKind.available
    )
    func retries(kind: StoreKind) async throws {
        try await FakeProviders.withServer(kind) { fake, server, _ in
            fake.script(
                "fcm-throttled",
                .init(status: .tooManyRequests, body: #"{"error":{"status":"RESOURCE_EXHAUSTED"}}"#, retryAfter: "120"))
            fake.script("apns-flaky", .init(status: .serviceUnavailable), .init(status: .internalServerError))
            fake.script(
                "fcm-bad",
                .init(status: .badRequest, body: #"{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"bad"}}"#)
            )
            let customerId = UUID()
            let customer = try await server.token(.customer, customerId)
            try await Self.register(
                server, customer, device: "a", platform: "android", pushToken: "fcm-throttled", locale: nil)
            try await Self.register(
                server, customer, device: "b", platform: "ios", pushToken: "apns-flaky", locale: nil)
            try await Self.register(
                server, customer, device: "c", platform: "android", pushToken: "fcm-bad", locale: nil)
            _ = try await Self.cancelledOrder(server, customerId: customerId)
            try await fake.wait("first attempts") { state in state.fcm.count == 2 && state.apns.count == 1 }

            // Backoff for pushes starts within 2 s; a minute later the flaky one has had its second try, while the
            // throttled one still waits out its 120 s.
            try await server.notificationsSettled()
            server.clock.advance(by: 60)
            try await fake.wait("second APNs attempt") { state in state.apns.count == 2 }
            try await Task.sleep(for: .milliseconds(800))
            #expect(Self.pushes(fake.snapshot.fcm, to: "fcm-throttled").count == 1)

            try await server.notificationsSettled()
            server.clock.advance(by: 61)
            try await fake.wait("throttled and flaky pushes delivered") { state in
                Self.pushes(state.fcm, to: "fcm-throttled").count == 2 && state.apns.count == 3
            }
            try await Task.sleep(for: .milliseconds(500))
            #expect(Self.pushes(fake.snapshot.fcm, to: "fcm-bad").count == 1)
            // The provider has answered; the dispatcher records the outcome a moment later (longer on a busy machine).
            let expected = ["apns-flaky": "SENT", "fcm-bad": "DEAD", "fcm-throttled": "SENT"]
            var byTarget: [String: String] = [:]
            for _ in 0..<100 {
                let statuses = try await server.database.query(
                    "SELECT target, status, attempts FROM notification_deliveries ORDER BY target")
                byTarget = Dictionary(
                    uniqueKeysWithValues: try statuses.map { (try $0.string("target"), try $0.string("status")) })
                if byTarget == expected { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(byTarget == expected)
        }
    }
}
