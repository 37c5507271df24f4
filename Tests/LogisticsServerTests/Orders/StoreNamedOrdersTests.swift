import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

/// Orders name the registered store they are for (`vendorId`), so its staff see them whoever created them: a
/// dispatcher taking an order on the phone, or the store itself.
@Suite("Orders for a registered store", .timeLimit(.minutes(2)))
struct StoreNamedOrdersTests {
    /// A store registered by an admin, and a token of one of its staff (a store's token names the store).
    private func registeredStore(_ server: TestServer, name: String) async throws -> (id: String, staff: String) {
        let store = try await server.send(
            .post, "/api/v1/vendors", token: try await server.token(.admin),
            json: ["name": name, "address": "12 Rue Grimaldi", "location": ["lat": 43.7310, "lon": 7.4190]])
        #expect(store.status == 201, "\(store.text)")
        let id = try #require(store["vendorId"] as? String)
        return (id, try await server.token(.vendor, try #require(UUID(uuidString: id))))
    }

    private func references(_ server: TestServer, token: String) async throws -> [String] {
        let page = try await server.send(.get, "/api/v1/orders?open=true", token: token)
        #expect(page.status == 200, "\(page.text)")
        return (page["orders"] as? [[String: Any]] ?? []).compactMap { $0["externalRef"] as? String }.sorted()
    }

    @Test(
        "a dispatcher's order naming a store reaches its staff, who see, ready and cancel it",
        arguments: StoreKind.available)
    func dispatcherOrderReachesTheStore(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let grimaldi = try await registeredStore(server, name: "Boulangerie Grimaldi")
            let other = try await registeredStore(server, name: "Café du Port")
            let dispatcher = try await server.token(.dispatcher)
            var body = Fixtures.order()
            body.removeValue(forKey: "vendor")
            body["vendorId"] = grimaldi.id
            body["externalRef"] = "PHONE-1"
            let created = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: body)
            #expect(created.status == 201, "\(created.text)")
            #expect(created["vendorId"] as? String == grimaldi.id)
            // The registered store's name and place are the pickup.
            let vendor = created["vendor"] as? [String: Any]
            #expect(vendor?["name"] as? String == "Boulangerie Grimaldi")
            #expect(vendor?["address"] as? String == "12 Rue Grimaldi")
            #expect((vendor?["location"] as? [String: Any])?["lat"] as? Double == 43.7310)
            let orderId = try #require(created["orderId"] as? String)

            #expect(try await references(server, token: grimaldi.staff) == ["PHONE-1"])
            #expect(try await references(server, token: other.staff) == [])
            #expect(try await server.send(.get, "/api/v1/orders/\(orderId)", token: grimaldi.staff).status == 200)
            #expect(try await server.send(.get, "/api/v1/orders/\(orderId)", token: other.staff).status == 404)
            let ready = try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: grimaldi.staff)
            #expect(ready.status == 200, "\(ready.text)")
            #expect(ready["status"] as? String == "READY_FOR_PICKUP")
            #expect(
                try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: other.staff).status == 404)
            let cancelled = try await server.send(
                .post, "/api/v1/orders/\(orderId)/cancel", token: grimaldi.staff, json: ["reason": "Sold out"])
            #expect(cancelled.status == 200, "\(cancelled.text)")
        }
    }

    @Test(
        "a store's staff order without repeating the store's address; their order is the store's",
        arguments: StoreKind.available)
    func staffOrderForTheirStore(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let grimaldi = try await registeredStore(server, name: "Boulangerie Grimaldi")
            var body = Fixtures.order()
            body.removeValue(forKey: "vendor")
            body["externalRef"] = "OWN-1"
            let created = try await server.send(.post, "/api/v1/orders", token: grimaldi.staff, json: body)
            #expect(created.status == 201, "\(created.text)")
            #expect(created["vendorId"] as? String == grimaldi.id)
            #expect((created["vendor"] as? [String: Any])?["name"] as? String == "Boulangerie Grimaldi")
            // Naming their own store by id is the same.
            body["vendorId"] = grimaldi.id
            body["externalRef"] = "OWN-2"
            let named = try await server.send(.post, "/api/v1/orders", token: grimaldi.staff, json: body)
            #expect(named.status == 201, "\(named.text)")
            #expect(try await references(server, token: grimaldi.staff) == ["OWN-1", "OWN-2"])
            // An order cannot rename the store: its registered name stays the company's.
            let store = try await server.send(
                .get, "/api/v1/vendors/\(grimaldi.id)", token: try await server.token(.admin))
            #expect(store["name"] as? String == "Boulangerie Grimaldi")
            var renamed = Fixtures.order()
            renamed["externalRef"] = "OWN-3"
            #expect(try await server.send(.post, "/api/v1/orders", token: grimaldi.staff, json: renamed).status == 201)
            let after = try await server.send(
                .get, "/api/v1/vendors/\(grimaldi.id)", token: try await server.token(.admin))
            #expect(after["name"] as? String == "Boulangerie Grimaldi")
        }
    }

    @Test(
        "an unknown store is 400, another store's id from a store is 403, and neither creates anything",
        arguments: StoreKind.available)
    func refusedStores(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let grimaldi = try await registeredStore(server, name: "Boulangerie Grimaldi")
            let port = try await registeredStore(server, name: "Café du Port")
            let dispatcher = try await server.token(.dispatcher)
            var body = Fixtures.order()
            body["vendorId"] = UUID().uuidString.lowercased()
            let unknown = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: body)
            #expect(unknown.status == 400, "\(unknown.text)")
            #expect(unknown.contentType == "application/problem+json")
            #expect(unknown["code"] as? String == "VALIDATION_FAILED")
            let fields = (unknown["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(fields == ["vendorId"])

            body["vendorId"] = port.id
            let foreign = try await server.send(.post, "/api/v1/orders", token: grimaldi.staff, json: body)
            #expect(foreign.status == 403, "\(foreign.text)")
            #expect(foreign["code"] as? String == "FORBIDDEN")

            body.removeValue(forKey: "vendorId")
            body.removeValue(forKey: "vendor")
            let nowhere = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: body)
            #expect(nowhere.status == 400, "\(nowhere.text)")
            #expect((nowhere["errors"] as? [[String: Any]])?.first?["field"] as? String == "vendor")

            body["vendorId"] = "not-a-store"
            let garbled = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: body)
            #expect(garbled.status == 400, "\(garbled.text)")

            let all = try await server.send(.get, "/api/v1/orders", token: dispatcher)
            #expect((all["orders"] as? [Any])?.count == 0)
        }
    }
}
