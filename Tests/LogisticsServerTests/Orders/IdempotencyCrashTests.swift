import Foundation
import LogisticsCore
import LogisticsServer
import Testing

@testable import TestSupport

/// The idempotency record commits with the change it guards: a process killed between that commit and its
/// response (the fault switch) never lets the retry create a second order or a second status change.
@Suite("Idempotency survives a crash after the commit", .serialized, .timeLimit(.minutes(3)))
struct IdempotencyCrashTests {
    @Test(
        "retrying a create and a status change after the process died right after their commits",
        arguments: StoreKind.available)
    func retryAfterCrash(store: StoreKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("logistics-fault-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var environment = ["LOGISTICS_JWT_SECRET": ProcessTests.secret]
        var schema: IsolatedSchema?
        if store == .postgres, let url = StoreKind.postgresURL {
            let isolated = try await IsolatedSchema.create(url: url)
            schema = isolated
            environment["DATABASE_URL"] = url
            environment["LOGISTICS_DATABASE_SCHEMA"] = isolated.name
        }
        defer { if let schema { Task { await schema.drop() } } }
        let arguments = ["serve", "--port", "0", "--data-dir", directory.path]
        let token = try await ProcessTests.dispatcherToken()
        var order = Fixtures.order()
        order["externalRef"] = "CRASH-\(UUID())"
        let body = try JSONSerialization.data(withJSONObject: order)

        // The create commits, then the process dies before answering.
        var faulty = try ServerProcess(
            arguments: arguments, environment: environment.merging(["LOGISTICS_FAULT_CRASH_AFTER_COMMIT": "on"]) { $1 })
        try await faulty.start()
        let lost = try? await ConcurrentClient.send(
            port: faulty.port, .post, "/api/v1/orders", token: token, jsonBody: body,
            headers: ["Idempotency-Key": "create-1"])
        #expect(lost == nil)
        #expect(await faulty.waitForExit() != 0)

        var server = try ServerProcess(arguments: arguments, environment: environment)
        try await server.start()
        let retried = try await ConcurrentClient.send(
            port: server.port, .post, "/api/v1/orders", token: token, jsonBody: body,
            headers: ["Idempotency-Key": "create-1"])
        #expect(retried.status == 201)
        #expect(retried.headers[.init("Idempotent-Replayed")!] == "true")
        let orderId = try #require(retried["orderId"] as? String)
        #expect(retried.headers[.location] == "/api/v1/orders/\(orderId)")
        let again = try await ConcurrentClient.send(
            port: server.port, .post, "/api/v1/orders", token: token, jsonBody: body,
            headers: ["Idempotency-Key": "create-1"])
        #expect(again["orderId"] as? String == orderId)
        #expect(try await ordersNamed(order["externalRef"] as! String, port: server.port, token: token) == 1)
        server.kill(SIGKILL)
        _ = await server.waitForExit()

        // A status change: "ready" commits, the process dies, the retry answers from the order.
        faulty = try ServerProcess(
            arguments: arguments, environment: environment.merging(["LOGISTICS_FAULT_CRASH_AFTER_COMMIT": "on"]) { $1 })
        try await faulty.start()
        _ = try? await ConcurrentClient.send(
            port: faulty.port, .post, "/api/v1/orders/\(orderId)/ready", token: token,
            headers: ["Idempotency-Key": "ready-1"])
        #expect(await faulty.waitForExit() != 0)

        server = try ServerProcess(arguments: arguments, environment: environment)
        try await server.start()
        let ready = try await ConcurrentClient.send(
            port: server.port, .post, "/api/v1/orders/\(orderId)/ready", token: token,
            headers: ["Idempotency-Key": "ready-1"])
        #expect(ready.status == 200)
        #expect(ready["status"] as? String == "READY_FOR_PICKUP")
        #expect(ready.headers[.init("Idempotent-Replayed")!] == "true")
        let log = try await ConcurrentClient.send(
            port: server.port, .get, "/api/v1/orders/\(orderId)/events", token: token)
        let types = (log["events"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? String }
        #expect(types.filter { $0 == "READY_FOR_PICKUP" }.count == 1)
        server.kill(SIGTERM)
        #expect(await server.waitForExit() == 0)
    }

    private func ordersNamed(_ externalRef: String, port: Int, token: String) async throws -> Int {
        let page = try await ConcurrentClient.send(port: port, .get, "/api/v1/orders?limit=200", token: token)
        return (page["orders"] as? [[String: Any]] ?? []).filter { $0["externalRef"] as? String == externalRef }.count
    }
}
