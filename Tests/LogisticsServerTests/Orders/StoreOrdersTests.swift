import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

/// The store's page reads the store's orders through `GET /api/v1/orders`.
@Suite("A store's own orders", .timeLimit(.minutes(2)))
struct StoreOrdersTests {
    @Test("a store lists its own open orders only, whatever vendorId it names", arguments: StoreKind.available)
    func ownOrdersOnly(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let (storeA, storeB) = (UUID(), UUID())
            let tokenA = try await server.token(.vendor, storeA)
            let tokenB = try await server.token(.vendor, storeB)
            for (token, reference) in [(tokenA, "A-1"), (tokenA, "A-2"), (tokenB, "B-1")] {
                var order = Fixtures.order()
                order["externalRef"] = reference
                #expect(try await server.send(.post, "/api/v1/orders", token: token, json: order).status == 201)
            }
            for path in [
                "/api/v1/orders?open=true", "/api/v1/orders?open=true&vendorId=\(storeB.lowercased)",
            ] {
                let page = try await server.send(.get, path, token: tokenA)
                #expect(page.status == 200, "\(page.text)")
                let references = (page["orders"] as? [[String: Any]] ?? []).compactMap { $0["externalRef"] as? String }
                #expect(references.sorted() == ["A-1", "A-2"], "\(path)")
            }
            let staff = try await server.send(
                .get, "/api/v1/orders?open=true", token: try await server.token(.dispatcher))
            #expect((staff["orders"] as? [Any])?.count == 3)
            #expect(try await server.send(.get, "/api/v1/orders", token: try await server.token(.rider)).status == 403)
        }
    }
}
