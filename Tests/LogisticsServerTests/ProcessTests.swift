import Foundation
import LogisticsCore
import LogisticsServer
import Testing

@Suite("The logistics binary", .serialized)
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
