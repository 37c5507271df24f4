import Crypto
import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// Webhooks: signed, filtered, in order per order under retries, dead-lettered after their budget.
@Suite("Webhooks", .timeLimit(.minutes(3)))
struct WebhookTests {
    /// HMAC-SHA256 written out from its definition (RFC 2104), so the check does not share code with the server.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? Array(SHA256.hash(data: key)) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = Array(SHA256.hash(data: block.map { $0 ^ 0x36 } + message))
        return Array(SHA256.hash(data: block.map { $0 ^ 0x5c } + inner))
    }

    /// What a receiver does: recompute the signature over `id.timestamp.body` and compare.
    static func verify(_ hook: FakeProviders.Hook, secret: String = Fixtures.webhookSecret) -> Bool {
        guard let id = hook.headers["webhook-id"], let timestamp = hook.headers["webhook-timestamp"],
            let signature = hook.headers["webhook-signature"]
        else { return false }
        let mac = hmacSHA256(key: Array(secret.utf8), message: Array("\(id).\(timestamp).".utf8) + hook.body)
        return signature == "v1," + Data(mac).base64EncodedString()
    }

    static func document(_ hook: FakeProviders.Hook) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(hook.body)) as? [String: Any]) ?? [:]
    }

    static func subscribe(_ server: TestServer, port: Int, name: String, events: [String]) async throws -> String {
        let reply = try await server.send(
            .post, "/api/v1/webhooks", token: try await server.token(.admin),
            json: ["url": "http://127.0.0.1:\(port)/hooks/\(name)", "events": events, "secret": Fixtures.webhookSecret])
        #expect(reply.status == 201, "\(reply.text)")
        return try #require(reply["webhookId"] as? String)
    }

    @Test(
        "events are POSTed signed, with the documented body, only to webhooks that asked for them",
        arguments: StoreKind.available)
    func signedAndFiltered(kind: StoreKind) async throws {
        try await FakeProviders.withServer(kind) { fake, server, port in
            _ = try await Self.subscribe(
                server, port: port, name: "oms", events: ["OrderAssigned", "DeliveryStatusUpdated"])
            _ = try await Self.subscribe(server, port: port, name: "all", events: ["*"])
            let scenario = try await DeliveryScenario.ready(server)
            let (riderId, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            let log = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/events", token: scenario.dispatcher)
            let eventIds = try #require(log["events"] as? [[String: Any]]).compactMap { $0["eventId"] as? String }
            try await fake.wait("every event to 'all', four to 'oms'") { state in
                state.hooks.filter { $0.name == "all" }.count == eventIds.count
                    && state.hooks.filter { $0.name == "oms" }.count == 4
            }
            let hooks = fake.snapshot.hooks
            #expect(hooks.allSatisfy { Self.verify($0) })
            #expect(!Self.verify(hooks[0], secret: "another-secret-0123456789"))
            let oms = hooks.filter { $0.name == "oms" }.map(Self.document)
            #expect(
                oms.map { $0["type"] as? String } == ["OrderAssigned"]
                    + Array(repeating: "DeliveryStatusUpdated", count: 3))
            #expect(
                oms.map { ($0["data"] as? [String: Any])?["status"] as? String } == [
                    "RIDER_ASSIGNED", "ARRIVED_AT_STORE", "PICKED_UP", "ARRIVED_AT_DESTINATION",
                ])
            #expect((oms[0]["data"] as? [String: Any])?["riderId"] as? String == riderId.lowercased)
            let all = hooks.filter { $0.name == "all" }
            #expect(all.compactMap { Self.document($0)["id"] as? String } == eventIds, "every event, in log order")
            for hook in hooks {
                let body = Self.document(hook)
                #expect(hook.headers["webhook-id"] == body["id"] as? String)
                #expect(body["orderId"] as? String == scenario.orderId)
                #expect(body["seq"] is Int)
                #expect((body["occurredAt"] as? String).flatMap(RFC3339.date(from:)) != nil)
                let timestamp = Int(hook.headers["webhook-timestamp"] ?? "") ?? 0
                #expect(abs(Double(timestamp) - server.clock.now().timeIntervalSince1970) < 5)
                #expect(hook.headers["content-type"] == "application/json")
            }
            var metrics = ""
            for _ in 0..<40 where !metrics.contains("notification_queue_depth 0") {
                try await Task.sleep(for: .milliseconds(100))
                metrics = try await server.send(.get, "/metrics").text
            }
            #expect(metrics.contains(#"notifications_sent_total{provider="webhook",outcome="sent"}"#))
            #expect(metrics.contains("notification_queue_depth 0"))
            #expect(metrics.contains("notification_oldest_pending_seconds 0"))
        }
    }

    @Test("a retrying event holds back its order's later events, and no other order's", arguments: StoreKind.available)
    func orderedUnderRetries(kind: StoreKind) async throws {
        try await FakeProviders.withServer(kind) { fake, server, port in
            _ = try await Self.subscribe(
                server, port: port, name: "oms", events: ["OrderAssigned", "DeliveryStatusUpdated"])
            fake.script("oms", .init(status: .serviceUnavailable))
            let first = try await DeliveryScenario.ready(server)
            let (_, riderA, taskA) = try await first.assigned()
            try await fake.wait("the first order's assignment refused once") { $0.hooks.count == 1 }
            try await first.status(taskA, "ARRIVED_AT_STORE", rider: riderA)
            try await first.status(taskA, "PICKED_UP", rider: riderA)

            let second = try await DeliveryScenario.ready(server)
            let (_, riderB, taskB) = try await second.assigned()
            try await second.status(taskB, "ARRIVED_AT_STORE", rider: riderB)
            try await fake.wait("the second order's events, not held up by the first") { state in
                state.hooks.filter { Self.document($0)["orderId"] as? String == second.orderId }.count == 2
            }
            try await Task.sleep(for: .milliseconds(500))
            let held = fake.snapshot.hooks.filter { Self.document($0)["orderId"] as? String == first.orderId }
            #expect(held.count == 1, "the first order's later events wait behind its failed first one")

            fake.script("oms", .init(status: .badGateway, retryAfter: "3"))
            try await server.notificationsSettled()
            server.clock.advance(by: 10)  // the first retry comes within 5 s; it gets a 502 with Retry-After: 3
            try await fake.wait("second attempt") { state in
                state.hooks.filter { Self.document($0)["orderId"] as? String == first.orderId }.count == 2
            }
            try await server.notificationsSettled()
            server.clock.advance(by: 20)
            try await fake.wait("the first order delivered") { state in
                state.hooks.filter { Self.document($0)["orderId"] as? String == first.orderId && $0.answered == .ok }
                    .count == 3
            }
            let attempts = fake.snapshot.hooks.filter { Self.document($0)["orderId"] as? String == first.orderId }
            let seqs = attempts.compactMap { Self.document($0)["seq"] as? Int }
            #expect(seqs.count == 5 && Set(seqs.prefix(3)).count == 1, "the failed event is retried before any other")
            #expect(Array(seqs.dropFirst(2)) == Array(Set(seqs)).sorted(), "then the order's events in seq order")
            #expect(attempts.map(\.answered) == [.serviceUnavailable, .badGateway, .ok, .ok, .ok])
            #expect(Set(attempts.prefix(3).map { $0.headers["webhook-id"] }).count == 1, "retries keep the event's id")
        }
    }

    @Test(
        "after its retry budget an event is dead-lettered; an admin sees it and redelivers it",
        arguments: StoreKind.available)
    func deadLetters(kind: StoreKind) async throws {
        try await FakeProviders.withServer(kind) { fake, server, port in
            _ = try await Self.subscribe(server, port: port, name: "down", events: ["OrderCreated"])
            for _ in 0..<3 { fake.script("down", .init(status: .internalServerError, body: #"{"error":"db down"}"#)) }
            let dispatcher = try await server.token(.dispatcher)
            let created = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
            let orderId = try #require(created["orderId"] as? String)
            try await fake.wait("first attempt") { $0.hooks.count == 1 }
            try await server.notificationsSettled()
            server.clock.advance(by: 3600)
            try await fake.wait("a retry an hour later") { $0.hooks.count == 2 }
            try await server.notificationsSettled()
            server.clock.advance(by: 23 * 3600)  // a day after the first attempt: this one is the last
            try await fake.wait("the last attempt") { $0.hooks.count == 3 }

            let admin = try await server.token(.admin)
            var letters: [[String: Any]] = []
            for _ in 0..<100 {
                let reply = try await server.send(.get, "/api/v1/webhooks/dead-letters", token: admin)
                #expect(reply.status == 200)
                letters = reply["deadLetters"] as? [[String: Any]] ?? []
                if !letters.isEmpty { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let letter = try #require(letters.first)
            #expect(letter["orderId"] as? String == orderId)
            #expect(letter["attempts"] as? Int == 3)
            #expect(letter["channel"] as? String == "webhook")
            #expect((letter["lastError"] as? String)?.contains("500") == true)
            #expect(letter["url"] as? String == "http://127.0.0.1:\(port)/hooks/down")
            let deliveryId = try #require(letter["deliveryId"] as? Int)
            let dispatcherNow = try await server.token(.dispatcher)
            #expect(try await server.send(.get, "/api/v1/webhooks/dead-letters", token: dispatcherNow).status == 403)

            let redelivered = try await server.send(
                .post, "/api/v1/webhooks/dead-letters/\(deliveryId)/redeliver", token: admin)
            #expect(redelivered.status == 202)
            try await fake.wait("the redelivery") { state in state.hooks.last?.answered == .ok }
            #expect(Set(fake.snapshot.hooks.map { $0.headers["webhook-id"] }).count == 1)
            let after = try await server.send(.get, "/api/v1/webhooks/dead-letters", token: admin)
            #expect((after["deadLetters"] as? [Any])?.isEmpty == true)
            let again = try await server.send(
                .post, "/api/v1/webhooks/dead-letters/\(deliveryId)/redeliver", token: admin)
            #expect(again.status == 404)
            #expect(again.code == "NOT_FOUND")
        }
    }

    @Test("a receiver answering 302 to this machine is not followed; the attempt is retried with the reason")
    func redirectsNotFollowed() async throws {
        try await FakeProviders.withServer(.sqlite) { fake, server, port in
            _ = try await Self.subscribe(server, port: port, name: "moved", events: ["OrderCreated"])
            fake.script("moved", .init(status: .found, location: "http://127.0.0.1:\(port)/hooks/internal"))
            let dispatcher = try await server.token(.dispatcher)
            _ = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
            try await fake.wait("the attempt") { $0.hooks.contains { $0.name == "moved" } }
            try await server.notificationsSettled()
            try await Task.sleep(for: .milliseconds(500))
            #expect(!fake.snapshot.hooks.contains { $0.name == "internal" }, "the redirect was followed")
            let reason = try await server.database.first(
                "SELECT last_error FROM notification_deliveries WHERE channel = 'webhook'", [])?.optionalString(
                    "last_error")
            #expect(reason?.contains("302: redirects are not followed to http://127.0.0.1") == true, "\(reason ?? "")")
        }
    }

    @Test("a deleted webhook gets nothing more", arguments: StoreKind.available)
    func deletion(kind: StoreKind) async throws {
        try await FakeProviders.withServer(kind) { fake, server, port in
            let id = try await Self.subscribe(server, port: port, name: "gone", events: ["*"])
            let admin = try await server.token(.admin)
            let listed = try await server.send(.get, "/api/v1/webhooks", token: admin)
            let hooks = try #require(listed["webhooks"] as? [[String: Any]])
            #expect(hooks.count == 1)
            #expect(hooks[0]["secret"] == nil, "secrets are never shown again")
            #expect(try await server.send(.delete, "/api/v1/webhooks/\(id)", token: admin).status == 204)
            #expect(try await server.send(.delete, "/api/v1/webhooks/\(id)", token: admin).status == 404)
            let dispatcher = try await server.token(.dispatcher)
            #expect(
                try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order()).status == 201)
            try await Task.sleep(for: .milliseconds(800))
            #expect(fake.snapshot.hooks.isEmpty)
        }
    }

    @Test(
        "secrets are stored sealed; ones stored in plain text are sealed at start and still sign",
        arguments: StoreKind.available)
    func sealedSecrets(kind: StoreKind) async throws {
        try await FakeProviders.withServer(kind) { fake, server, port in
            _ = try await Self.subscribe(server, port: port, name: "new", events: ["*"])
            // As an older version stored it.
            try await server.components.repository.createWebhook(
                WebhookSubscription(
                    id: UUID(), url: "http://127.0.0.1:\(port)/hooks/old", events: ["*"],
                    secret: Fixtures.webhookSecret,
                    createdAt: server.clock.now()),
                createdBy: UUID())
            let sealer = server.components.secretSealer
            try await WebhookSecrets.sealStored(
                repository: server.components.repository, sealer: sealer, logger: Logger(label: "test"))
            let stored = try await server.database.query("SELECT secret FROM webhooks").map { try $0.string("secret") }
            #expect(stored.count == 2)
            #expect(
                stored.allSatisfy { SecretSealer.isSealed($0) && !$0.contains(Fixtures.webhookSecret) }, "\(stored)")
            #expect(Set(stored).count == 2, "a fresh nonce for each")
            #expect(try stored.map(sealer.open) == [Fixtures.webhookSecret, Fixtures.webhookSecret])
            #expect(try await server.components.repository.rewriteWebhookSecrets { _ in nil } == 0)

            let dispatcher = try await server.token(.dispatcher)
            #expect(
                try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order()).status == 201)
            try await fake.wait("the new event at both webhooks") { state in
                Set(state.hooks.map(\.name)) == ["new", "old"]
            }
            #expect(fake.snapshot.hooks.allSatisfy { Self.verify($0) })
        }
    }
}
