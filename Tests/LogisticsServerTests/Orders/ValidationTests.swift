import Foundation
import LogisticsStore
import Testing

@testable import TestSupport

@Suite("Bad input is refused with a problem document and changes nothing", .timeLimit(.minutes(3)))
struct ValidationTests {
    static func fields(_ reply: Reply) -> [String] {
        (reply["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String } ?? []
    }

    @Test(
        "malformed, mistyped, missing and out-of-range fields are 400 VALIDATION_FAILED", arguments: StoreKind.available
    )
    func validation(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            var wrongType = Fixtures.order()
            wrongType["vendor"] = ["name": 42, "address": "x", "location": ["lat": 1, "lon": 2]]
            var missing = Fixtures.order()
            missing.removeValue(forKey: "customer")
            var badLat = Fixtures.order(lat: 91)
            badLat["notes"] = "x"
            var badPhone = Fixtures.order()
            badPhone["customer"] = [
                "id": UUID().uuidString, "name": "A", "phone": "call me", "address": "B",
                "location": ["lat": 1, "lon": 2],
            ]
            var badCustomerId = Fixtures.order()
            badCustomerId["customer"] = [
                "id": "not-a-uuid", "name": "A", "phone": "+377 93 15 00 01", "address": "B",
                "location": ["lat": 1, "lon": 2],
            ]
            var emptyName = Fixtures.order()
            emptyName["vendor"] = ["name": " ", "address": "x", "location": ["lat": 1, "lon": 200]]

            let malformed = try await server.send(
                .post, "/api/v1/orders", token: dispatcher, raw: Data("{\"vendor\": ".utf8),
                contentType: "application/json")
            #expect(malformed.code == "VALIDATION_FAILED")
            #expect(Self.fields(malformed) == ["body"])

            let typed = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: wrongType)
            #expect(typed.code == "VALIDATION_FAILED")
            #expect(Self.fields(typed) == ["vendor.name"])

            let absent = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: missing)
            #expect(Self.fields(absent) == ["customer"])

            let range = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: badLat)
            #expect(range.status == 400)
            #expect(Self.fields(range) == ["customer.location.lat"])

            let phone = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: badPhone)
            #expect(Self.fields(phone) == ["customer.phone"])

            let customerId = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: badCustomerId)
            #expect(Self.fields(customerId) == ["customer.id"])

            let several = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: emptyName)
            #expect(Set(Self.fields(several)) == ["vendor.name", "vendor.location.lon"])

            let empty = try await server.send(
                .post, "/api/v1/orders", token: dispatcher, raw: Data(), contentType: "application/json")
            #expect(empty.code == "VALIDATION_FAILED")

            let rider = try await server.token(.rider)
            let unknownEnum = try await server.send(
                .put, "/api/v1/rider/availability", token: rider, json: ["status": "BUSY"])
            #expect(unknownEnum.code == "VALIDATION_FAILED")
            #expect(Self.fields(unknownEnum) == ["status"])
            let onTask = try await server.send(
                .put, "/api/v1/rider/availability", token: rider, json: ["status": "ON_TASK"])
            #expect(onTask.code == "VALIDATION_FAILED")

            let badPath = try await server.send(.get, "/api/v1/orders/not-a-uuid", token: dispatcher)
            #expect(badPath.status == 400)
            #expect(Self.fields(badPath) == ["orderId"])

            for reply in [malformed, typed, absent, range, phone, several, empty, unknownEnum, badPath] {
                #expect(reply.status == 400)
                #expect(reply.contentType == "application/problem+json")
                #expect(reply["title"] as? String == "Some of the information sent is not valid")
                #expect(
                    !reply.text.contains("Swift") && !reply.text.contains("/work/") && !reply.text.contains("SELECT"))
            }
            #expect(try await server.count("orders") == 0)
            #expect(try await server.count("order_events") == 0)
        }
    }

    @Test("bodies over 64 KiB are 413 and the wrong content type is 415", arguments: StoreKind.available)
    func sizeAndType(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            var huge = Fixtures.order()
            huge["notes"] = String(repeating: "x", count: 70 * 1024)
            let tooLarge = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: huge)
            #expect(tooLarge.status == 413)
            #expect(tooLarge.code == "PAYLOAD_TOO_LARGE")

            let body = try JSONSerialization.data(withJSONObject: Fixtures.order())
            let wrongType = try await server.send(
                .post, "/api/v1/orders", token: dispatcher, raw: body, contentType: "text/plain")
            #expect(wrongType.status == 415)
            #expect(wrongType.code == "UNSUPPORTED_MEDIA_TYPE")
            let noType = try await server.send(.post, "/api/v1/orders", token: dispatcher, raw: body)
            #expect(noType.code == "UNSUPPORTED_MEDIA_TYPE")
            #expect(try await server.count("orders") == 0)
        }
    }

    @Test("a known path with the wrong method is 405 METHOD_NOT_ALLOWED with Allow")
    func wrongMethod() async throws {
        try await TestServer.run(.sqlite) { server in
            let dispatcher = try await server.token(.dispatcher)
            let reply = try await server.send(.delete, "/api/v1/orders", token: dispatcher)
            #expect(reply.status == 405)
            #expect(reply.code == "METHOD_NOT_ALLOWED")
            #expect(reply.headers[.allow] == "GET, POST")
            #expect(reply.contentType == "application/problem+json")
            let withId = try await server.send(.put, "/api/v1/orders/\(UUID())/ready", token: dispatcher)
            #expect(withId.status == 405)
            #expect(withId.headers[.allow] == "POST")
            let health = try await server.send(.post, "/health/live")
            #expect(health.status == 405)
        }
    }

    @Test("unknown routes are 404 problem documents")
    func unknownRoute() async throws {
        try await TestServer.run(.sqlite) { server in
            let dispatcher = try await server.token(.dispatcher)
            let reply = try await server.send(.get, "/api/v1/nowhere", token: dispatcher)
            #expect(reply.status == 404)
            #expect(reply.code == "NOT_FOUND")
            #expect(reply.contentType == "application/problem+json")
        }
    }
}
