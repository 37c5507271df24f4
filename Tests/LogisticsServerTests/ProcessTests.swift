import Foundation
import Logging
import LogisticsCore
import LogisticsServer
import LogisticsStore
import Testing

@Suite("The logistics binary", .serialized, .timeLimit(.minutes(3)))
struct ProcessTests {
    static let secret = "process-test-secret-0123456789abcdef"

    static func dispatcherToken() async throws -> String {
        try await AccessTokenIssuer(secret: secret).token(subject: UUID(), role: .dispatcher)
    }

    @Test("kill -9 loses no acknowledged order; the restarted server has them all")
    func crashDurability() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-crash-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let arguments = ["serve", "--port", "0", "--data-dir", directory.path]
        let environment = ["LOGISTICS_JWT_SECRET": Self.secret]
        let token = try await Self.dispatcherToken()

        let first = try ServerProcess(arguments: arguments, environment: environment)
        try await first.start()
        var acknowledged: [String] = []
        for _ in 0..<25 {
            let body = try JSONSerialization.data(withJSONObject: Fixtures.order())
            let reply = try await ConcurrentClient.send(
                port: first.port, .post, "/api/v1/orders", token: token, jsonBody: body)
            #expect(reply.status == 201)
            if let id = reply["orderId"] as? String { acknowledged.append(id) }
        }
        first.kill(SIGKILL)
        #expect(await first.waitForExit() != 0)

        let second = try ServerProcess(arguments: arguments, environment: environment)
        try await second.start()
        for id in acknowledged {
            let reply = try await ConcurrentClient.send(
                port: second.port, .get, "/api/v1/orders/\(id)/events", token: token)
            #expect(reply.status == 200)
            #expect((reply["events"] as? [Any])?.count == 1)
        }
        second.kill(SIGTERM)
        #expect(await second.waitForExit() == 0)
    }

    @Test("kill -9 right after the acknowledgements loses no acknowledged fix and no last position")
    func fixDurability() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-crash-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServerProcess(
            arguments: ["serve", "--port", "0", "--data-dir", directory.path],
            environment: ["LOGISTICS_JWT_SECRET": Self.secret])
        try await server.start()
        let riderId = UUID()
        let rider = try await AccessTokenIssuer(secret: Self.secret).token(subject: riderId, role: .rider)
        let start = Date().addingTimeInterval(-600)
        // 20 concurrent batches of moving fixes share group commits; every acknowledged fix must survive.
        let acknowledged = try await withThrowingTaskGroup(of: [Double].self) { group in
            for batch in 0..<20 {
                group.addTask {
                    let fixes = (0..<2).map { index -> [String: Any] in
                        let step = Double(batch * 2 + index)
                        return [
                            "lat": 43.70 + step * 0.001, "lon": 7.42, "accuracyM": 5,
                            "recordedAt": RFC3339.string(from: start.addingTimeInterval(step * 5)),
                        ]
                    }
                    let reply = try await ConcurrentClient.send(
                        port: server.port, .post, "/api/v1/rider/locations", token: rider,
                        jsonBody: try JSONSerialization.data(withJSONObject: ["fixes": fixes]))
                    return reply.status == 202 ? fixes.map { $0["lat"] as! Double } : []
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        server.kill(SIGKILL)
        #expect(await server.waitForExit() != 0)
        #expect(acknowledged.count == 40)

        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let database = try await StoreFactory.open(
            .sqlite(path: (directory.path as NSString).appendingPathComponent("logistics.sqlite")), logger: logger)
        let rows = try await database.query(
            "SELECT lat FROM rider_locations WHERE rider_id = ?", [.uuid(riderId)])
        #expect(Set(rows.compactMap { $0.optionalDouble("lat") }) == Set(acknowledged))
        let last = try await database.first("SELECT last_lat FROM riders WHERE id = ?", [.uuid(riderId)])
        #expect(last?.optionalDouble("last_lat") == acknowledged.max())
        await database.close()
    }

    @Test("production refuses to start without a strong secret, with a readable message")
    func productionSecret() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-prod-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        for secret in ["", "short"] {
            let server = try ServerProcess(
                arguments: ["serve", "--port", "0", "--data-dir", directory.path],
                environment: ["LOGISTICS_ENV": "production", "LOGISTICS_JWT_SECRET": secret])
            await #expect(throws: ProcessError.self) { try await server.start(timeout: .seconds(30)) }
            let status = await server.waitForExit()
            #expect(status != 0)
        }
    }
}
