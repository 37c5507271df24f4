import Foundation
import Logging
import LogisticsStore
import Synchronization
import Testing

@testable import TestSupport

/// PostgreSQL going away under load and coming back (its connections ended and new ones refused, which is what
/// the server sees of a restart, on a database of the test's own so the cluster other suites share stays up).
@Suite("Database restart under load", .timeLimit(.minutes(3)))
struct DatabaseRestartTests {
    /// What the clients saw while the database went away and came back.
    final class Tally: Sendable {
        struct Reply: Sendable {
            var status: Int
            var retryAfter: Bool
            var seconds: Double
            var at: ContinuousClock.Instant
        }
        let replies = Mutex<[Reply]>([])
        let created = Mutex<[String]>([])
        let running = Mutex(true)
    }

    @Test(
        "under load: only 201 or 503 with Retry-After, no hang; back within 5 s; webhooks and tracking catch up",
        .enabled(if: StoreKind.postgresURL != nil, "needs LOGISTICS_TEST_DATABASE_URL"))
    func restartUnderLoad() async throws {
        let database = try await ScratchDatabase.create(prefix: "restart", baseURL: try #require(StoreKind.postgresURL))
        defer { Task { await database.drop() } }
        let fake = try FakeProviders()
        try await fake.run { port in
            try await TestServer.run(
                .sqlite,
                mode: .live,
                configure: {
                    $0.database.url = database.url
                    $0.database.poolSize = 4
                    $0.database.timeoutSeconds = 5
                    $0.notifications.webhookRetryBaseSeconds = 0.2
                    $0.rateLimits = .off
                }
            ) { server in
                let hook = try await server.send(
                    .post, "/api/v1/webhooks", token: try await server.token(.admin),
                    json: [
                        "url": "http://127.0.0.1:\(port)/hooks/oms", "events": ["*"], "secret": Fixtures.webhookSecret,
                    ])
                #expect(hook.status == 201)
                let (scenario, rider, _) = try await DeliveryScenario.inTransit(server)
                let follower = TrackingFollower(port: server.port, orderId: scenario.orderId, token: scenario.customer)
                try await follower.wait { $0.first?["type"] as? String == "snapshot" }

                let tally = Tally()
                let dispatcher = scenario.dispatcher
                let load = Task {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for _ in 0..<6 {
                            group.addTask { try await Self.createOrders(server, dispatcher: dispatcher, tally) }
                        }
                        try await group.waitForAll()
                    }
                }
                try await Task.sleep(for: .seconds(1))
                try await database.goAway()
                // Longer than the 5 s the server waits for a connection, so requests must give up with 503.
                try await Task.sleep(for: .seconds(8))
                try await database.comeBack()
                let back = ContinuousClock.now
                try await Task.sleep(for: .seconds(6))
                tally.running.withLock { $0 = false }
                try await load.value

                let replies = tally.replies.withLock { $0 }
                let statuses = Dictionary(grouping: replies, by: \.status).mapValues(\.count)
                #expect(Set(statuses.keys).isSubset(of: [201, 503]), "only created or unavailable: \(statuses)")
                #expect((statuses[503] ?? 0) > 0, "the outage was seen: \(statuses)")
                #expect(replies.filter { $0.status == 503 }.allSatisfy { $0.retryAfter })
                let slowest = replies.map(\.seconds).max() ?? 0
                #expect(slowest < 8, "no request hangs: the slowest took \(slowest) s")
                let firstBack = replies.filter { $0.status == 201 && $0.at > back }.map(\.at).min()
                let recovery = try #require(firstBack) - back
                #expect(recovery < .seconds(5), "service was back \(recovery) after the database")

                // The tracking relay listens again: a fix after the restart reaches the customer.
                try await RiderFixes.post(server, rider: rider, lat: 43.7391, after: 30)
                try await follower.wait {
                    $0.contains { $0["type"] as? String == "location" && ($0["lat"] as? Double) == 43.7391 }
                }
                // Every acknowledged order's creation reaches the webhook; copies keep one id and one body.
                let created = Set(tally.created.withLock { $0 })
                try await fake.wait("every created order's webhook", timeout: .seconds(60)) { state in
                    let delivered = Set(
                        state.hooks.filter { $0.answered == .ok }.compactMap { hook -> String? in
                            let body = try? JSONSerialization.jsonObject(with: Data(hook.body)) as? [String: Any]
                            return body?["type"] as? String == "OrderCreated" ? body?["orderId"] as? String : nil
                        })
                    return created.isSubset(of: delivered)
                }
                let copies = Dictionary(grouping: fake.snapshot.hooks) { $0.headers["webhook-id"] ?? "" }
                for (id, attempts) in copies {
                    #expect(Set(attempts.map(\.body)).count == 1, "every copy of \(id) carries the same body")
                }
                print("database restart: \(statuses), slowest \(slowest) s, back after \(recovery)")
            }
        }
    }

    private static func createOrders(_ server: TestServer, dispatcher: String, _ tally: Tally) async throws {
        while tally.running.withLock({ $0 }) {
            let started = ContinuousClock.now
            // One connection per request: the harness client has one and would queue the clients behind each other.
            let reply = try await ConcurrentClient.send(
                port: server.port, .post, "/api/v1/orders", token: dispatcher,
                jsonBody: try JSONSerialization.data(withJSONObject: Fixtures.order()))
            let elapsed = ContinuousClock.now - started
            tally.replies.withLock {
                $0.append(
                    .init(
                        status: reply.status, retryAfter: reply.headers[.retryAfter] != nil,
                        seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                        at: ContinuousClock.now))
            }
            if reply.status == 201, let id = reply["orderId"] as? String { tally.created.withLock { $0.append(id) } }
            // A steady trickle, as clients would send; the outage, not the volume, is under test.
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}
