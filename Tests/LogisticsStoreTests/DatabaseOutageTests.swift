import Foundation
import Logging
import LogisticsStore
import Testing

@testable import TestSupport

/// PostgreSQL going away and coming back. The test uses a database of its own and refuses new
/// connections to it (and ends the existing ones), which is what the server sees when the
/// database host stops — without stopping the cluster other tests share.
@Suite("Database outage", .timeLimit(.minutes(3)))
struct DatabaseOutageTests {
    @Test(
        "503 SERVICE_UNAVAILABLE with Retry-After while PostgreSQL is unreachable, then recovery",
        .enabled(if: StoreKind.postgresURL != nil, "needs LOGISTICS_TEST_DATABASE_URL"))
    func outageAndRecovery() async throws {
        let database = try await ScratchDatabase.create(prefix: "outage", baseURL: try #require(StoreKind.postgresURL))
        do {
            try await TestServer.run(
                .sqlite,
                configure: {
                    $0.database.url = database.url
                    $0.database.poolSize = 2
                    // Long enough for migrations on a busy machine; an outage still answers 503 after it.
                    $0.database.timeoutSeconds = 5
                }
            ) { server in
                let dispatcher = try await server.token(.dispatcher)
                #expect(try await server.send(.get, "/api/v1/orders", token: dispatcher).status == 200)

                try await database.goAway()
                let down = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
                #expect(down.status == 503)
                #expect(down.code == "SERVICE_UNAVAILABLE")
                #expect(down.headers[.retryAfter] != nil)
                #expect(!down.text.contains("postgres") && !down.text.contains("SELECT"))
                let ready = try await server.send(.get, "/health/ready")
                #expect(ready.status == 503)

                try await database.comeBack()
                var recovered = false
                for _ in 0..<40 where !recovered {
                    let reply = try await server.send(
                        .post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
                    recovered = reply.status == 201
                    if !recovered { try await Task.sleep(for: .milliseconds(250)) }
                }
                #expect(recovered)
                #expect(try await server.send(.get, "/health/ready").status == 200)
            }
        } catch {
            await database.drop()
            throw error
        }
        await database.drop()
    }

    @Test(
        "a refused connection is named in the error, not only the time waited",
        .enabled(if: StoreKind.postgresURL != nil, "needs LOGISTICS_TEST_DATABASE_URL"))
    func refusedConnectionIsNamed() async throws {
        let base = try #require(StoreKind.postgresURL)
        var url = try #require(URLComponents(string: base))
        let quiet = Logger(label: "refused") { _ in SwiftLogNoOpLogHandler() }
        var cases: [(URLComponents, String)] = []
        var wrongPassword = url
        wrongPassword.password = "not-the-password"
        cases.append((wrongPassword, "password authentication failed"))
        url.path = "/no_such_database_\(Int.random(in: 1000...9999))"
        cases.append((url, "does not exist"))
        for (components, expected) in cases {
            let database = try PostgresDatabase(
                settings: .init(url: try #require(components.string), poolSize: 1, operationTimeout: .seconds(1)),
                logger: quiet)
            let error = await #expect(throws: StoreError.self) { try await database.ping() }
            let said = error.map { "\($0)" } ?? ""
            #expect(said.contains("no answer from PostgreSQL") && said.contains(expected), "\(said)")
            await database.close()
        }
    }
}
