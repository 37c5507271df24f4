import Foundation
import HummingbirdTesting
import Logging
import LogisticsCore
import LogisticsServer
import Testing

/// Two server instances sharing one PostgreSQL: the acceptance guarantee must not depend on being
/// the only process.
@Suite("Several instances on one PostgreSQL")
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

    private func race(url: String, schema: IsolatedSchema) async throws {
        func configuration() -> ServerConfiguration {
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.databaseURL = url
            configuration.databaseSchema = schema.name
            configuration.databasePoolSize = 10
            configuration.databaseTimeoutSeconds = 30
            configuration.jwtSecret = "multi-instance-secret-0123456789abcdef"
            configuration.dataDirectory =
                FileManager.default.temporaryDirectory.appendingPathComponent("mi-\(UUID())").path
            return configuration
        }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let clock = ManualWallClock(Date())
        let first = try await buildApplication(configuration(), clock: clock, logger: logger)
        let second = try await buildApplication(configuration(), clock: clock, logger: logger)
        try await first.application.test(.live) { clientA in
            try await second.application.test(.live) { clientB in
                let serverA = TestServer(
                    client: clientA, services: first.services, clock: clock, kind: .postgres, routes: first.routes)
                let ports = [clientA.port!, clientB.port!]
                for round in 0..<10 {
                    let scenario = try await DeliveryScenario.ready(serverA)
                    var riders: [(id: UUID, token: String)] = []
                    for _ in 0..<50 { riders.append(try await scenario.onlineRider()) }
                    let offers = try await scenario.offer(to: riders.map(\.id))
                    let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                        for (index, rider) in riders.enumerated() {
                            let offerId = offers[rider.id]!
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
                    #expect(statuses.filter { $0.1 == "ORDER_ALREADY_ASSIGNED" }.count == 49, "round \(round)")
                    #expect(try await serverA.count("tasks", "order_id = ?", [.text(scenario.orderId)]) == 1)
                }
            }
        }
    }
}
