import Foundation
import HTTPTypes
import LogisticsCore
import Testing

@testable import TestSupport

@Suite("Health, metrics, request ids and the OpenAPI document", .timeLimit(.minutes(3)))
struct OperationsTests {
    @Test("health, readiness and metrics answer without a token", arguments: StoreKind.available)
    func health(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            #expect(try await server.send(.get, "/health/live").status == 200)
            let ready = try await server.send(.get, "/health/ready")
            #expect(ready.status == 200)
            #expect(ready.json.keys.sorted() == ["status"], "nothing internal to anonymous callers: \(ready.text)")
            let rider = try await server.send(.get, "/health/ready", token: try await server.token(.rider))
            #expect(rider.json.keys.sorted() == ["status"])
            let admin = try await server.send(.get, "/health/ready", token: try await server.token(.admin))
            #expect(admin["database"] as? String == kind.rawValue)
            _ = try await server.send(.get, "/api/v1/orders")
            let metrics = try await server.send(.get, "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains(#"http_requests_total{route="/api/v1/orders",method="GET",status="401"} 1"#))
            #expect(metrics.text.contains("http_request_duration_seconds_bucket"))
        }
    }

    @Test("request ids are echoed or generated, also on errors")
    func requestIds() async throws {
        try await TestServer.run(.sqlite) { server in
            let echoed = try await server.send(.get, "/health/live", headers: ["X-Request-Id": "abc-123"])
            #expect(echoed.headers[.init("X-Request-Id")!] == "abc-123")
            let generated = try await server.send(.get, "/api/v1/orders")
            let id = try #require(generated.headers[.init("X-Request-Id")!])
            #expect(UUID(uuidString: id) != nil)
            #expect(generated["requestId"] as? String == id)
        }
    }

    @Test("a wrong method is 405 with an Allow header naming what the router serves on that path, and no more")
    func methodNotAllowed() async throws {
        try await TestServer.run(.sqlite) { server in
            let admin = try await server.token(.admin)
            // Schemathesis found `Allow: DELETE, GET` here: DELETE belongs to /webhooks/{webhookId}, which the
            // router never picks for this path, so a client following the header got 405 again.
            for (method, path, allowed) in [
                (HTTPRequest.Method.options, "/api/v1/webhooks/dead-letters", "GET"),
                (.put, "/api/v1/webhooks/\(UUID())", "DELETE"), (.delete, "/api/v1/orders", "GET, POST"),
            ] {
                let reply = try await server.send(method, path, token: admin)
                #expect(reply.status == 405 && reply.code == "METHOD_NOT_ALLOWED", "\(method) \(path)")
                #expect(reply.headers[.allow] == allowed, "\(method) \(path)")
            }
            let deleted = try await server.send(.delete, "/api/v1/webhooks/dead-letters", token: admin)
            #expect(deleted.headers[.allow] == "GET")
        }
    }

    @Test("the OpenAPI document lists every route the server serves, with its error codes")
    func openAPIMatchesRoutes() async throws {
        try await TestServer.run(.sqlite) { server in
            let reply = try await server.send(.get, "/openapi.json")
            #expect(reply.status == 200)
            #expect(reply["openapi"] as? String == "3.1.0")
            let paths = try #require(reply["paths"] as? [String: [String: Any]])
            var documented: Set<String> = []
            for (path, operations) in paths {
                for method in operations.keys { documented.insert("\(method.uppercased()) \(path)") }
            }
            let served = Set(server.routes.map(\.description))
            #expect(served.subtracting(documented).isEmpty, "undocumented: \(served.subtracting(documented).sorted())")
            #expect(
                documented.subtracting(served).isEmpty,
                "documented but not served: \(documented.subtracting(served).sorted())")
            // The files list the codes by hand: nothing but this keeps each one real and under its own status.
            for (path, operations) in paths {
                for (method, operation) in operations {
                    let responses = (operation as? [String: Any])?["responses"] as? [String: [String: Any]] ?? [:]
                    for (status, response) in responses {
                        let content = response["content"] as? [String: Any]
                        guard let problem = content?["application/problem+json"] as? [String: Any] else { continue }
                        let codes = problem["x-error-codes"] as? [String] ?? []
                        #expect(!codes.isEmpty, "\(method) \(path) \(status) lists no x-error-codes")
                        for code in codes {
                            #expect(
                                ErrorCode(rawValue: code)?.httpStatus == Int(status),
                                "\(method) \(path) \(status): \(code) is not a code of that status")
                        }
                    }
                }
            }
            let components = try #require(reply["components"] as? [String: Any])
            let schemas = try #require(components["schemas"] as? [String: Any])
            #expect(schemas["Problem"] != nil)
            #expect(reply.text.contains("IDEMPOTENCY_KEY_REUSED"))
            #expect(reply.text.contains("UNAUTHENTICATED"))
        }
    }
}
