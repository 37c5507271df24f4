import Foundation
import LogisticsCore
import LogisticsServer
import LogisticsStore
import Testing

@testable import TestSupport

/// An account's devices are capped, tokens a provider calls invalid are forgotten, and one destination's backlog
/// cannot fill the sender's batch ahead of everyone else.
@Suite("Devices per account", .timeLimit(.minutes(3)))
struct DeviceLimitTests {
    @Test("an account keeps its 10 newest devices; a push goes to those only", arguments: StoreKind.available)
    func cap(kind: StoreKind) async throws {
        try await FakeProviders.withServer(kind) { fake, server, _ in
            let customerId = UUID()
            let customer = try await server.token(.customer, customerId)
            for index in 0..<14 {
                try await PushNotificationTests.register(
                    server, customer, device: "phone-\(index)", platform: "android", pushToken: "fcm-\(index)",
                    locale: nil)
                server.clock.advance(by: 1)
            }
            #expect(try await server.count("devices", "owner_id = ?", [.text(customerId.lowercased)]) == 10)
            // Registering a kept device again makes it the newest; the oldest other one goes.
            try await PushNotificationTests.register(
                server, customer, device: "phone-4", platform: "android", pushToken: "fcm-4", locale: nil)
            server.clock.advance(by: 1)
            try await PushNotificationTests.register(
                server, customer, device: "phone-14", platform: "android", pushToken: "fcm-14", locale: nil)
            _ = try await PushNotificationTests.cancelledOrder(server, customerId: customerId)
            try await fake.wait("ten pushes") { $0.fcm.count == 10 }
            try await Task.sleep(for: .milliseconds(300))
            let tokens = Set(fake.snapshot.fcm.map(\.token))
            #expect(tokens == Set([4, 6, 7, 8, 9, 10, 11, 12, 13, 14].map { "fcm-\($0)" }))
        }
    }

    @Test(
        "a token FCM calls INVALID_ARGUMENT or APNs calls BadDeviceToken is forgotten", arguments: StoreKind.available)
    func invalidTokens(kind: StoreKind) async throws {
        try await FakeProviders.withServer(kind) { fake, server, _ in
            fake.script(
                "fcm-junk",
                .init(
                    status: .badRequest,
                    body: #"""
                        {"error":{"code":400,"message":"The registration token is not a valid FCM registration token",
                        "status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError",
                        "errorCode":"INVALID_ARGUMENT"}]}}
                        """#))
            fake.script("apns-junk", .init(status: .badRequest, body: #"{"reason":"BadDeviceToken"}"#))
            let customerId = UUID()
            let customer = try await server.token(.customer, customerId)
            try await PushNotificationTests.register(
                server, customer, device: "junk", platform: "android", pushToken: "fcm-junk", locale: nil)
            try await PushNotificationTests.register(
                server, customer, device: "junk-ios", platform: "ios", pushToken: "apns-junk", locale: nil)
            try await PushNotificationTests.register(
                server, customer, device: "real", platform: "android", pushToken: "fcm-real", locale: nil)
            _ = try await PushNotificationTests.cancelledOrder(server, customerId: customerId)
            var remaining = 3
            for _ in 0..<100 where remaining != 1 {
                try await Task.sleep(for: .milliseconds(50))
                remaining = try await server.count("devices", "owner_id = ?", [.text(customerId.lowercased)])
            }
            #expect(remaining == 1)
        }
    }

    @Test(
        "one destination's backlog of 300 takes at most 20 places in a claim; the others' messages go in it",
        arguments: StoreKind.available)
    func fairClaim(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            // Due only at a time the server's own sender never asks about, so only the test claims them.
            let due = server.clock.now().addingTimeInterval(86_400)
            func insert(outbox: Int, destination: String, order: UUID) async throws {
                try await server.database.query(
                    """
                    INSERT INTO notification_deliveries (outbox_id, event_id, order_id, channel, destination_id,
                        target, ordering_key, status, next_attempt_at, budget_from, created_at)
                    VALUES (?, ?, ?, 'fcm', ?, ?, ?, 'PENDING', ?, ?, ?)
                    """,
                    [
                        .int(outbox), .uuid(UUID()), .uuid(order), .text(destination), .text("token-\(destination)"),
                        .text("fcm:\(destination):\(order.lowercased)"), .date(due), .date(due), .date(due),
                    ])
            }
            for index in 0..<300 { try await insert(outbox: 1_000 + index, destination: "flooder", order: UUID()) }
            try await insert(outbox: 2_000, destination: "neighbour", order: UUID())
            _ = try await server.components.repository.claimNotifications(
                owner: "test", limit: 50, leaseUntil: due.addingTimeInterval(3_600), now: due.addingTimeInterval(1))
            let claimed = try await server.database.query(
                "SELECT destination_id FROM notification_deliveries WHERE lease_owner = 'test'")
            let destinations = try claimed.map { try $0.string("destination_id") }
            #expect(destinations.filter { $0 == "flooder" }.count == SQLLogisticsRepository.perDestinationPerClaim)
            #expect(destinations.contains("neighbour"))
        }
    }
}
