import Foundation
import HummingbirdTesting
import Logging
import LogisticsCore
import LogisticsServer
import Testing

@testable import TestSupport

/// Two server instances sharing one PostgreSQL: the acceptance guarantee must not depend on being
/// the only process.
@Suite("Several instances on one PostgreSQL", .timeLimit(.minutes(3)))
struct MultiInstanceTests {
    @Test(
        "50 riders split over two instances accept one order: exactly one wins, 10 times over",
        .enabled(if: StoreKind.postgresURL != nil, "needs LOGISTICS_TEST_DATABASE_URL"))
    func twoInstancesRace() async throws {
        let url = try #require(StoreKind.postgresURL)
        let schema = try await IsolatedSchema.create(url: url)
        do {
            try await race(url: url, schema: schema)
        } catch {
            await schema.drop()
            throw error
        }
        await schema.drop()
    }

    static func configuration(url: String, schema: IsolatedSchema) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.database.url = url
        configuration.database.schema = schema.name
        configuration.database.poolSize = 10
        configuration.database.timeoutSeconds = 30
        configuration.tokens.jwtSecret = "multi-instance-secret-0123456789abcdef"
        // Dozens of riders and customers here are phones sharing one address, which its rate limit would slow.
        configuration.rateLimits = .off
        configuration.dataDirectory =
            FileManager.default.temporaryDirectory.appendingPathComponent("mi-\(UUID())").path
        return configuration
    }

    private func race(url: String, schema: IsolatedSchema) async throws {
        func configuration() -> ServerConfiguration { Self.configuration(url: url, schema: schema) }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let clock = ManualWallClock(Date())
        let first = try await buildApplication(configuration(), clock: clock, logger: logger)
        let second = try await buildApplication(configuration(), clock: clock, logger: logger)
        try await first.application.test(.live) { clientA in
            try await second.application.test(.live) { clientB in
                let serverA = TestServer(
                    client: clientA, components: first.components, clock: clock, kind: .postgres, routes: first.routes)
                let ports = [clientA.port!, clientB.port!]
                for round in 0..<10 {
                    let scenario = try await DeliveryScenario.ready(serverA)
                    var riders: [(id: UUID, token: String)] = []
                    for _ in 0..<50 { riders.append(try await scenario.onlineRider()) }
                    let offers = try await scenario.offer(to: riders.map(\.id))
                    let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                        for (index, rider) in riders.enumerated() {
                            let offerId = try #require(offers[rider.id], "an offer for every rider")
                            group.addTask {
                                let reply = try await ConcurrentClient.send(
                                    port: ports[index % 2], .post, "/api/v1/rider/offers/\(offerId)/accept",
                                    token: rider.token)
                                return (reply.status, reply.code)
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(statuses.filter { $0.0 == 200 }.count == 1, "round \(round)")
                    #expect(
                        statuses.filter { $0.1 == "ORDER_ALREADY_ASSIGNED" }.count == 49, "round \(round): \(statuses)")
                    #expect(try await serverA.count("tasks", "order_id = ?", [.text(scenario.orderId)]) == 1)
                }
            }
        }
    }

    @Test(
        "a rider's fix and a status change on instance A reach the customer following on instance B",
        .enabled(if: StoreKind.postgresURL != nil, "needs LOGISTICS_TEST_DATABASE_URL"))
    func trackingAcrossInstances() async throws {
        let url = try #require(StoreKind.postgresURL)
        let schema = try await IsolatedSchema.create(url: url)
        do {
            try await followAcross(url: url, schema: schema)
        } catch {
            await schema.drop()
            throw error
        }
        await schema.drop()
    }

    private func followAcross(url: String, schema: IsolatedSchema) async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let clock = ManualWallClock(Date())
        let first = try await buildApplication(
            Self.configuration(url: url, schema: schema), clock: clock, logger: logger)
        let second = try await buildApplication(
            Self.configuration(url: url, schema: schema), clock: clock, logger: logger)
        try await first.application.test(.live) { clientA in
            try await second.application.test(.live) { clientB in
                await first.waitUntilTrackingIsShared()
                await second.waitUntilTrackingIsShared()
                let serverA = TestServer(
                    client: clientA, components: first.components, clock: clock, kind: .postgres, routes: first.routes)
                let (scenario, rider, taskId) = try await DeliveryScenario.inTransit(serverA)
                let follower = TrackingFollower(
                    port: clientB.port!, orderId: scenario.orderId, token: scenario.customer)
                try await follower.wait { $0.first?["type"] as? String == "snapshot" }
                try await RiderFixes.post(serverA, rider: rider, lat: 43.7380)
                try await follower.wait { $0.contains { $0["type"] as? String == "location" } }
                let location = try #require(follower.messages.first { $0["type"] as? String == "location" })
                #expect(location["lat"] as? Double == 43.7380)
                #expect(try await scenario.status(taskId, "ARRIVED_AT_DESTINATION", rider: rider).status == 200)
                try await follower.wait { messages in
                    messages.contains {
                        $0["type"] as? String == "status" && $0["status"] as? String == "ARRIVED_AT_DESTINATION"
                    }
                }
                let seqs = follower.messages.compactMap { $0["seq"] as? Int }
                #expect(seqs == Array(seqs[0]..<(seqs[0] + seqs.count)))
            }
        }
    }

    @Test(
        "two instances share one notification queue: every webhook event and push is sent exactly once",
        .enabled(if: StoreKind.postgresURL != nil, "needs LOGISTICS_TEST_DATABASE_URL"))
    func notificationsAcrossInstances() async throws {
        let url = try #require(StoreKind.postgresURL)
        let schema = try await IsolatedSchema.create(url: url)
        let fake = try FakeProviders()
        do {
            try await fake.run { port in try await Self.sendOnce(url: url, schema: schema, fake: fake, port: port) }
        } catch {
            await schema.drop()
            throw error
        }
        await schema.drop()
    }

    private static func sendOnce(url: String, schema: IsolatedSchema, fake: FakeProviders, port: Int) async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let clock = ManualWallClock(Date())
        let providers = try fake.settings(port: port)
        func configuration() -> ServerConfiguration {
            var configuration = Self.configuration(url: url, schema: schema)
            providers(&configuration)
            return configuration
        }
        let first = try await buildApplication(configuration(), clock: clock, logger: logger)
        let second = try await buildApplication(configuration(), clock: clock, logger: logger)
        try await first.application.test(.live) { clientA in
            try await second.application.test(.live) { clientB in
                let servers = [
                    TestServer(
                        client: clientA, components: first.components, clock: clock, kind: .postgres,
                        routes: first.routes),
                    TestServer(
                        client: clientB, components: second.components, clock: clock, kind: .postgres,
                        routes: second.routes),
                ]
                _ = try await WebhookTests.subscribe(servers[0], port: port, name: "oms", events: ["*"])
                let customerId = UUID()
                try await PushNotificationTests.register(
                    servers[1], try await servers[1].token(.customer, customerId), device: "phone",
                    platform: "android", pushToken: "fcm-shared", locale: nil)
                // 20 orders created and cancelled, alternately on each instance, all at once, each over its own
                // connection as separate clients would: through the test client's one connection they queued
                // behind each other (pipelined) and timed out on a loaded run.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<20 {
                        group.addTask {
                            let server = servers[index % 2]
                            let dispatcher = try await server.token(.dispatcher)
                            let created = try await ConcurrentClient.send(
                                port: server.port, .post, "/api/v1/orders", token: dispatcher,
                                jsonBody: try JSONSerialization.data(
                                    withJSONObject: Fixtures.order(customerId: customerId)))
                            let orderId = try #require(created["orderId"] as? String, "\(created.status)")
                            let cancelled = try await ConcurrentClient.send(
                                port: server.port, .post, "/api/v1/orders/\(orderId)/cancel", token: dispatcher,
                                jsonBody: try JSONSerialization.data(withJSONObject: ["reason": "test"]))
                            #expect(cancelled.status == 200, "\(cancelled.text)")
                        }
                    }
                    try await group.waitForAll()
                }
                try await fake.wait("40 events and 20 pushes") { state in
                    Set(state.hooks.compactMap { $0.headers["webhook-id"] }).count == 40
                        && Set(state.fcm.compactMap { $0.data["eventId"] }).count == 20
                }
                try await Task.sleep(for: .seconds(1))
                let state = fake.snapshot
                #expect(state.hooks.count == 40, "no webhook event sent twice")
                #expect(state.fcm.count == 20, "no push sent twice")
                #expect(state.violations == [])
            }
        }
    }
}
