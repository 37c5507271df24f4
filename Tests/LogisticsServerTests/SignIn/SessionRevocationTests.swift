import Foundation
import HummingbirdTesting
import Logging
import LogisticsCore
import LogisticsServer
import Testing

@testable import TestSupport

/// A session ended on one instance: its sockets close (4401) within seconds and its tokens stop within 30 s on
/// every instance.
@Suite("Ending a sign-in everywhere", .timeLimit(.minutes(3)))
struct SessionRevocationTests {
    @Test("one instance: an admin revokes a rider's session; the rider's socket closes with 4401, the token stops")
    func oneInstance() async throws {
        try await SignInTests.withTwilio(.sqlite, mode: .live) { twilio, server in
            let rider = try await SignInTests.invite(server, twilio, phone: "+37799331122", name: "Ravi Iyer")
            let signedIn = try await SignInTests.signIn(server, twilio, phone: rider.phone)
            let access = try #require(signedIn["accessToken"] as? String)
            let socket = TrackingFollower(port: server.port, path: "/api/v1/rider/stream", token: access)
            try await socket.wait { $0.first?["type"] as? String == "ready" }
            let admin = try await server.token(.admin)
            let revoked = try await server.send(
                .delete, "/api/v1/sessions/\(signedIn["sessionId"] as? String ?? "")", token: admin)
            #expect(revoked.status == 204, "\(revoked.text)")
            let started = ContinuousClock.now
            try await socket.finished()
            #expect(socket.storage.applicationCloseCode.withLock { $0 } == 4401)
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(try await server.send(.get, "/api/v1/rider/me", token: access).status == 401)
            let again = try await server.send(
                .delete, "/api/v1/sessions/\(signedIn["sessionId"] as? String ?? "")", token: admin)
            #expect(again.status == 409)
        }
    }

    @Test(
        "two instances on one PostgreSQL: revoked on A, the socket on B closes with 4401 and B refuses the token",
        .enabled(if: StoreKind.postgresURL != nil, "needs LOGISTICS_TEST_DATABASE_URL"))
    func twoInstances() async throws {
        let url = try #require(StoreKind.postgresURL)
        let schema = try await IsolatedSchema.create(url: url)
        do {
            try await across(url: url, schema: schema)
        } catch {
            await schema.drop()
            throw error
        }
        await schema.drop()
    }

    private func across(url: String, schema: IsolatedSchema) async throws {
        let logger = {
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            return logger
        }()
        let clock = ManualWallClock(Date())
        let twilio = try FakeTwilio()
        try await twilio.run { port in
            let settings = try twilio.settings(port: port)
            func configuration() -> ServerConfiguration {
                var configuration = MultiInstanceTests.configuration(url: url, schema: schema)
                settings(&configuration)
                return configuration
            }
            let first = try await buildApplication(configuration(), clock: clock, logger: logger)
            let second = try await buildApplication(configuration(), clock: clock, logger: logger)
            try await first.application.test(.live) { clientA in
                try await second.application.test(.live) { clientB in
                    let serverA = TestServer(
                        client: clientA, components: first.components, clock: clock, kind: .postgres,
                        routes: first.routes)
                    let serverB = TestServer(
                        client: clientB, components: second.components, clock: clock, kind: .postgres,
                        routes: second.routes)
                    let rider = try await SignInTests.invite(serverA, twilio, phone: "+37799441122", name: "Lena Vogel")
                    let signedIn = try await SignInTests.signIn(serverA, twilio, phone: rider.phone)
                    let access = try #require(signedIn["accessToken"] as? String)
                    #expect(try await serverB.send(.get, "/api/v1/rider/me", token: access).status == 200)
                    let socket = TrackingFollower(port: clientB.port!, path: "/api/v1/rider/stream", token: access)
                    try await socket.wait { $0.first?["type"] as? String == "ready" }

                    let admin = try await serverA.token(.admin)
                    let started = ContinuousClock.now
                    let revoked = try await serverA.send(
                        .delete, "/api/v1/sessions/\(signedIn["sessionId"] as? String ?? "")", token: admin)
                    #expect(revoked.status == 204)
                    try await socket.finished()
                    #expect(socket.storage.applicationCloseCode.withLock { $0 } == 4401)
                    #expect(ContinuousClock.now - started < .seconds(5), "closed on B within seconds")
                    #expect(try await serverA.send(.get, "/api/v1/rider/me", token: access).status == 401)
                    // B heard of it through its socket watch: its API refuses the token already; and without that,
                    // its last check of the session is at most 25 s old.
                    #expect(try await serverB.send(.get, "/api/v1/rider/me", token: access).status == 401)
                    clock.advance(by: 26)
                    #expect(try await serverB.send(.get, "/api/v1/rider/me", token: access).status == 401)
                    #expect(twilio.snapshot.violations == [])
                }
            }
        }
    }
}
