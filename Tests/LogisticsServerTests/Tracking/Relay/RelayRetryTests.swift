import Foundation
import Logging
import LogisticsStore
import Synchronization
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// What the relay sends while PostgreSQL is away reaches the other instances once it is back: order events must
/// not be lost between instances.
@Suite("Relay during a database outage", .timeLimit(.minutes(2)))
struct RelayRetryTests {
    @Test(
        "a NOTIFY that fails because the database is away is sent again until it gets through",
        .enabled(if: StoreKind.postgresURL != nil, "needs LOGISTICS_TEST_DATABASE_URL"))
    func notifyWaitsForTheDatabase() async throws {
        let scratch = try await ScratchDatabase.create(prefix: "relay", baseURL: try #require(StoreKind.postgresURL))
        defer { Task { await scratch.drop() } }
        var logger = Logger(label: "relay-test")
        logger.logLevel = .critical
        let sender = try PostgresDatabase(
            settings: .init(url: scratch.url, poolSize: 1, operationTimeout: .seconds(1)), logger: logger)
        // Its first connection may take longer than the 1 s deadline on a machine running every suite at once; the
        // short deadline is for the outage below.
        var connected = false
        for _ in 0..<20 where !connected { connected = (try? await sender.query("SELECT 1")) != nil }
        try #require(connected)
        let heard = Mutex<[String]>([])
        let listening = Mutex(false)
        let receiver = try PostgresDatabase(
            settings: .init(url: scratch.url, poolSize: 1, operationTimeout: .seconds(1)), logger: logger)
        let listener = Task {
            try? await receiver.listen(channel: "relay_retry", onListening: { listening.withLock { $0 = true } }) {
                payload in heard.withLock { $0.append(payload) }
            }
        }
        while !listening.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(50)) }
        // The other instance stays connected and listening; this one loses the database, as in a failover it
        // sees before the others.
        try await scratch.admin.query("ALTER DATABASE \(scratch.name) WITH ALLOW_CONNECTIONS false")
        try await scratch.admin.query(
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = '\(scratch.name)' AND query NOT ILIKE 'LISTEN%'
            """)
        let sending = Task {
            await PostgresTrackingRelay.notify(
                [#"{"event":"delivered"}"#], channel: "relay_retry", database: sender, logger: logger)
        }
        try await Task.sleep(for: .seconds(3))
        #expect(heard.withLock { $0 }.isEmpty)
        try await scratch.comeBack()
        await sending.value
        let deadline = ContinuousClock.now + .seconds(20)
        while heard.withLock({ $0 }).isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        // At least once: an attempt abandoned at its deadline may still get through when the database returns, and
        // receivers drop what they have already applied (by seq).
        let received = heard.withLock { $0 }
        #expect(!received.isEmpty && received.allSatisfy { $0 == #"{"event":"delivered"}"# }, "\(received)")
        listener.cancel()
        await sender.close()
        await receiver.close()
    }
}
