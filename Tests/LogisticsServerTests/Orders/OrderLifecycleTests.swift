import Foundation
import LogisticsCore
import LogisticsStore
import Testing

@testable import TestSupport

@Suite("Orders end to end", .timeLimit(.minutes(3)))
struct OrderLifecycleTests {
    @Test(
        "create, read, ready, cancel: each change writes one event and its outbox row", arguments: StoreKind.available)
    func lifecycle(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let vendorId = UUID()
            let vendor = try await server.token(.vendor, vendorId)
            let customerId = UUID()
            let created = try await server.send(
                .post, "/api/v1/orders", token: vendor, json: Fixtures.order(customerId: customerId))
            #expect(created.status == 201)
            let orderId = try #require(created["orderId"] as? String)
            #expect(created.headers[.location] == "/api/v1/orders/\(orderId)")
            #expect(created["status"] as? String == "PREPARING")
            #expect(orderId == orderId.lowercased())

            let fetched = try await server.send(.get, "/api/v1/orders/\(orderId)", token: vendor)
            #expect(fetched.status == 200)
            #expect((fetched["customer"] as? [String: Any])?["id"] as? String == customerId.uuidString.lowercased())

            let ready = try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: vendor)
            #expect(ready["status"] as? String == "READY_FOR_PICKUP")
            let readyAgain = try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: vendor)
            #expect(readyAgain.status == 200)

            let cancelled = try await server.send(
                .post, "/api/v1/orders/\(orderId)/cancel", token: vendor, json: ["reason": "customer called"])
            #expect(cancelled["status"] as? String == "CANCELLED")
            #expect(cancelled["cancelReason"] as? String == "customer called")

            let dispatcher = try await server.token(.dispatcher)
            let events = try await server.send(.get, "/api/v1/orders/\(orderId)/events", token: dispatcher)
            let log = try #require(events["events"] as? [[String: Any]])
            #expect(log.map { $0["type"] as? String } == ["OrderCreated", "OrderReadyForPickup", "OrderCancelled"])
            #expect(log.map { $0["seq"] as? Int } == [1, 2, 3])
            let outboxEvents = try await server.count("outbox", "order_id = ? AND topic = 'event'", [.text(orderId)])
            #expect(outboxEvents == 3)
            let pushes = try await server.repository.outbox(orderId: UUID(uuidString: orderId)!).filter {
                $0.topic == "push"
            }
            // The customer's messages: placed (by text only, for those without the app), then cancelled.
            #expect(pushes.map(\.title) == ["Order received", "Order cancelled"])
            #expect(pushes.allSatisfy { $0.recipientId == customerId })
        }
    }

    @Test("unknown podType is stored as PHOTO", arguments: StoreKind.available)
    func unknownPodType(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            let created = try await server.send(
                .post, "/api/v1/orders", token: dispatcher, json: Fixtures.order(podType: "SIGNATURE"))
            #expect(created.status == 201)
            #expect(created["podType"] as? String == "PHOTO")
            #expect(created["status"] as? String == "PENDING_VENDOR_ACCEPTANCE")
        }
    }

    @Test(
        "OTP orders show the code to their customer alone; the database holds no code", arguments: StoreKind.available)
    func otpShownToCustomerOnly(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let customerId = UUID()
            let vendor = try await server.token(.vendor)
            let created = try await server.send(
                .post, "/api/v1/orders", token: vendor, json: Fixtures.order(customerId: customerId, podType: "OTP"))
            let orderId = try #require(created["orderId"] as? String)
            #expect(created.text.contains("deliveryOtp") == false)

            let customer = try await server.token(.customer, customerId)
            let own = try await server.send(.get, "/api/v1/customer/orders/\(orderId)", token: customer)
            #expect(own.status == 200)
            let code = try #require(own["deliveryOtp"] as? String)
            #expect(code.count == 4 && code.allSatisfy(\.isNumber))

            let row = try #require(
                try await server.database.first("SELECT * FROM orders WHERE id = ?", [.text(orderId)]))
            for value in row.values.values {
                if case .text(let text) = value { #expect(text != code) }
            }
            let order = try #require(try await server.repository.order(id: UUID(uuidString: orderId)!))
            #expect(server.components.otp.verify(orderId: order.id, attempt: code, storedHash: order.otpHash!))

            let stranger = try await server.token(.customer)
            let other = try await server.send(.get, "/api/v1/customer/orders/\(orderId)", token: stranger)
            #expect(other.status == 404)
            #expect(other.code == "NOT_FOUND")
        }
    }

    @Test("orders are listed newest first with a cursor", arguments: StoreKind.available)
    func pagination(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            var ids: [String] = []
            for _ in 0..<5 {
                server.clock.advance(by: 1)
                let created = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
                ids.append(created["orderId"] as! String)
            }
            let first = try await server.send(.get, "/api/v1/orders?limit=2", token: dispatcher)
            let firstIds = (first["orders"] as? [[String: Any]])?.compactMap { $0["orderId"] as? String }
            #expect(firstIds == [ids[4], ids[3]])
            let cursor = try #require(first["nextCursor"] as? String)
            // The shape the OpenAPI document states, URL-safe as it is.
            let documented = /-?[0-9]{1,18}_[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}/
            #expect(cursor.wholeMatch(of: documented) != nil, "\(cursor)")
            let second = try await server.send(.get, "/api/v1/orders?limit=2&cursor=\(cursor)", token: dispatcher)
            let secondIds = (second["orders"] as? [[String: Any]])?.compactMap { $0["orderId"] as? String }
            #expect(secondIds == [ids[2], ids[1]])
            // A cursor handed out before, base64 of `<ms>|<id>`, still pages on.
            let parts = cursor.split(separator: "_")
            let legacy = Data("\(parts[0])|\(parts[1])".utf8).base64EncodedString()
            let third = try await server.send(
                .get,
                "/api/v1/orders?limit=2&cursor=\(legacy.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                token: dispatcher)
            #expect((third["orders"] as? [[String: Any]])?.compactMap { $0["orderId"] as? String } == [ids[2], ids[1]])
            let filtered = try await server.send(.get, "/api/v1/orders?status=DELIVERED", token: dispatcher)
            #expect((filtered["orders"] as? [Any])?.isEmpty == true)
            let badStatus = try await server.send(.get, "/api/v1/orders?status=LOST", token: dispatcher)
            #expect(badStatus.code == "VALIDATION_FAILED")
            let badCursor = try await server.send(.get, "/api/v1/orders?cursor=nonsense", token: dispatcher)
            #expect(badCursor.code == "VALIDATION_FAILED")
        }
    }

    @Test("customers and vendors never see other parties' orders", arguments: StoreKind.available)
    func isolation(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let vendor = try await server.token(.vendor)
            let created = try await server.send(.post, "/api/v1/orders", token: vendor, json: Fixtures.order())
            let orderId = try #require(created["orderId"] as? String)
            let otherVendor = try await server.token(.vendor)
            #expect(try await server.send(.get, "/api/v1/orders/\(orderId)", token: otherVendor).code == "NOT_FOUND")
            let ready = try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: otherVendor)
            #expect(ready.code == "NOT_FOUND")
            let customer = try await server.token(.customer)
            #expect(try await server.send(.get, "/api/v1/orders/\(orderId)", token: customer).code == "NOT_FOUND")
            let rider = try await server.token(.rider)
            #expect(try await server.send(.get, "/api/v1/orders/\(orderId)", token: rider).code == "FORBIDDEN")
            #expect(try await server.send(.get, "/api/v1/orders/\(UUID())", token: vendor).code == "NOT_FOUND")
            // The order is unchanged by the refused calls.
            #expect(try await server.count("order_events", "order_id = ?", [.text(orderId)]) == 1)
        }
    }

    @Test("a delivered or failed order cannot be cancelled or marked ready", arguments: StoreKind.available)
    func finalOrders(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            let created = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
            let orderId = try #require(created["orderId"] as? String)
            try await server.database.query("UPDATE orders SET status = 'DELIVERED' WHERE id = ?", [.text(orderId)])
            let cancel = try await server.send(.post, "/api/v1/orders/\(orderId)/cancel", token: dispatcher, json: [:])
            #expect(cancel.status == 409)
            #expect(cancel.code == "INVALID_STATUS_TRANSITION")
            #expect(cancel["currentStatus"] as? String == "DELIVERED")
            let ready = try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: dispatcher)
            #expect(ready.code == "INVALID_STATUS_TRANSITION")

            let second = try await server.send(.post, "/api/v1/orders", token: dispatcher, json: Fixtures.order())
            let secondId = try #require(second["orderId"] as? String)
            _ = try await server.send(.post, "/api/v1/orders/\(secondId)/cancel", token: dispatcher, json: [:])
            let readyCancelled = try await server.send(.post, "/api/v1/orders/\(secondId)/ready", token: dispatcher)
            #expect(readyCancelled.status == 409)
            #expect(readyCancelled.code == "ORDER_CANCELLED")
        }
    }
}
