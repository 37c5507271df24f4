import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

/// `GET /api/v1/orders` for the dispatcher's page: open orders however many finished ones are newer, by rider,
/// store, day and words, and a parameter it does not know refused rather than ignored.
@Suite("Listing orders", .timeLimit(.minutes(2)))
struct OrderListTests {
    static func ids(_ reply: Reply) -> [String] {
        (reply["orders"] as? [[String: Any]] ?? []).compactMap { $0["orderId"] as? String }
    }

    @Test("open orders, a rider's, a store's, a day's and by reference, phone or name", arguments: StoreKind.available)
    func filters(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            // An order still open, then 30 newer ones that end: the open one must not drop off the first page.
            let open = try await DeliveryScenario.ready(server)
            let (riderId, _, _) = try await open.assigned()
            for _ in 0..<30 {
                let created = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
                let id = try #require(created["orderId"] as? String)
                _ = try await server.send(
                    .post, "/api/v1/orders/\(id)/cancel", token: dispatcher, json: ["reason": "test"])
            }
            let openPage = try await server.send(.get, "/api/v1/orders?open=true&limit=10", token: dispatcher)
            #expect(Self.ids(openPage) == [open.orderId])
            let ended = try await server.send(.get, "/api/v1/orders?open=false&limit=200", token: dispatcher)
            #expect(Self.ids(ended).count == 30)
            let byRider = try await server.send(.get, "/api/v1/orders?riderId=\(riderId)", token: dispatcher)
            #expect(Self.ids(byRider) == [open.orderId])

            var custom = Fixtures.order()
            custom["externalRef"] = "ZED-77_1"
            var customer = custom["customer"] as! [String: Any]
            customer["name"] = "Ahmed Karimi"
            customer["phone"] = "+33 6 12 34 56 78"
            custom["customer"] = customer
            let made = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: custom)
            let madeId = try #require(made["orderId"] as? String)
            for query in ["zed-77_1", "77_", "karimi", "612345678", "6 12 34"] {
                let found = try await server.send(
                    .get, "/api/v1/orders?q=\(query.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                    token: dispatcher)
                #expect(Self.ids(found) == [madeId], "q=\(query)")
            }
            let percent = try await server.send(.get, "/api/v1/orders?q=%25", token: dispatcher)
            #expect(Self.ids(percent).isEmpty, "a % is a character, not a wildcard")

            let now = server.clock.now()
            let today = try await server.send(
                .get,
                "/api/v1/orders?createdFrom=\(RFC3339.string(from: now.addingTimeInterval(-60)))&createdTo=\(RFC3339.string(from: now.addingTimeInterval(60)))&limit=200",
                token: dispatcher)
            #expect(Self.ids(today).count == 32)
            let tomorrow = try await server.send(
                .get, "/api/v1/orders?createdFrom=\(RFC3339.string(from: now.addingTimeInterval(86_400)))",
                token: dispatcher)
            #expect(Self.ids(tomorrow).isEmpty)
        }
    }

    @Test("an unknown or malformed parameter is 400 naming it, never ignored")
    func refusals() async throws {
        try await TestServer.run(.sqlite) { server in
            let dispatcher = try await server.token(.dispatcher)
            for (query, field) in [
                ("stauts=DELIVERED", "stauts"), ("open=yes", "open"), ("riderId=nope", "riderId"),
                ("createdFrom=yesterday", "createdFrom"), ("q=", "q"), ("vendor=1", "vendor"),
            ] {
                let reply = try await server.send(.get, "/api/v1/orders?\(query)", token: dispatcher)
                #expect(reply.status == 400, "\(query)")
                #expect(reply.code == "VALIDATION_FAILED", "\(query)")
                #expect(ValidationTests.fields(reply) == [field], "\(query)")
            }
        }
    }
}
