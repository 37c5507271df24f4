import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

@Suite("A delivery from offer to proof", .timeLimit(.minutes(3)))
struct DeliveryFlowTests {
    @Test(
        "OTP delivery: offer, accept, four status taps, code, delivered; every step logged and notified",
        arguments: StoreKind.available)
    func otpDelivery(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server, podType: "OTP")
            let rider = try await scenario.onlineRider(name: "Ravi Kumar")
            let offerId = try await scenario.offer(to: [rider.id])[rider.id]!

            let open = try await server.send(.get, "/api/v1/rider/offers", token: rider.token)
            let listed = try #require((open["offers"] as? [[String: Any]])?.first)
            #expect(listed["offerId"] as? String == offerId)
            #expect(listed["secondsLeft"] as? Int == 60)
            #expect(listed["expiresAt"] is String)

            let accepted = try await server.send(.post, "/api/v1/rider/offers/\(offerId)/accept", token: rider.token)
            #expect(accepted.status == 200)
            let taskId = try #require(accepted["taskId"] as? String)
            #expect(accepted["status"] as? String == "ACCEPTED")
            #expect(accepted["allowedNext"] as? [String] == ["ARRIVED_AT_STORE"])
            let customer = try #require(accepted["customer"] as? [String: Any])
            #expect(customer["phoneMasked"] as? String == "*******0001")
            #expect(customer["phone"] == nil)
            let retry = try await server.send(.post, "/api/v1/rider/offers/\(offerId)/accept", token: rider.token)
            #expect(retry.status == 200)
            #expect(retry.body == accepted.body)

            let me = try await server.send(.get, "/api/v1/rider/me", token: rider.token)
            #expect(me["availability"] as? String == "ON_TASK")
            #expect(me["activeTaskId"] as? String == taskId)
            let active = try await server.send(.get, "/api/v1/rider/tasks/active", token: rider.token)
            #expect(active["taskId"] as? String == taskId)
            #expect((active["nextStop"] as? [String: Any])?["kind"] as? String == "STORE")

            try await scenario.arrive(taskId, rider: rider.token)
            let order = try await server.send(
                .get, "/api/v1/customer/orders/\(scenario.orderId)", token: scenario.customer)
            #expect(order["status"] as? String == "ARRIVED_AT_DESTINATION")
            #expect(order["riderFirstName"] as? String == "Ravi")
            let code = try #require(order["deliveryOtp"] as? String)

            let proof = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider.token,
                json: [
                    "type": "OTP", "value": code, "capturedAt": RFC3339.string(from: server.clock.now()),
                    "location": ["lat": 43.7347, "lon": 7.4240, "accuracyM": 4],
                ])
            #expect(proof.status == 200)
            #expect(proof["verified"] as? Bool == true)

            let delivered = try await scenario.status(taskId, "DELIVERED", rider: rider.token)
            #expect(delivered.status == 200)
            #expect(delivered["status"] as? String == "DELIVERED")
            let after = try await server.send(.get, "/api/v1/rider/me", token: rider.token)
            #expect(after["availability"] as? String == "ONLINE")
            let none = try await server.send(.get, "/api/v1/rider/tasks/active", token: rider.token)
            #expect(none.status == 404)
            #expect(none.code == "NO_ACTIVE_TASK")

            let events = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/events", token: scenario.dispatcher)
            let log = try #require(events["events"] as? [[String: Any]])
            #expect(
                log.map { $0["type"] as! String } == [
                    "OrderCreated", "OrderReadyForPickup", "OffersMade", "OrderAssigned", "DeliveryStatusUpdated",
                    "DeliveryStatusUpdated", "DeliveryStatusUpdated", "ProofOfDeliveryAccepted",
                    "DeliveryStatusUpdated",
                ])
            #expect(log.map { $0["seq"] as! Int } == Array(1...9))
            #expect(
                log.compactMap { $0["type"] as? String == "DeliveryStatusUpdated" ? $0["status"] as? String : nil } == [
                    "ARRIVED_AT_STORE", "PICKED_UP", "ARRIVED_AT_DESTINATION", "DELIVERED",
                ])
            let statusEvents = try await server.count(
                "outbox", "order_id = ? AND topic = 'event' AND payload LIKE '%DeliveryStatusUpdated%'",
                [.text(scenario.orderId)])
            #expect(statusEvents == 4)

            let notifications = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/notifications", token: scenario.dispatcher)
            let pushes = try #require(notifications["notifications"] as? [[String: Any]])
            let toCustomer = pushes.filter { $0["recipientId"] as? String == scenario.customerId.lowercased }
            #expect(toCustomer.map { $0["body"] as! String }.contains("A rider has been assigned to your order"))
            #expect(toCustomer.map { $0["title"] as! String }.contains("Your rider has arrived!"))
            #expect(
                pushes.contains {
                    $0["recipientRole"] as? String == "rider" && $0["title"] as? String == "New delivery offer"
                })
        }
    }

    @Test(
        "photo delivery: real JPEG and PNG bytes stored by SHA-256 and served to the right people",
        arguments: StoreKind.available)
    func photoDelivery(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            let required = try await scenario.status(taskId, "DELIVERED", rider: rider)
            #expect(required.status == 409)
            #expect(required.code == "POD_REQUIRED")

            for (bytes, type) in [(Photos.jpeg, "image/jpeg"), (Photos.png, "image/png")] {
                let form = Photos.multipart(photo: bytes, fields: Photos.fields(server))
                let reply = try await server.send(
                    .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: form.body,
                    contentType: form.contentType)
                #expect(reply.status == 201, "\(reply.text)")
                #expect(reply["type"] as? String == "PHOTO")
                let digest = bytes.sha256Hex
                #expect(reply["sha256"] as? String == digest)
                let url = try #require(reply["imageUrl"] as? String)
                let image = try await server.send(.get, url, token: scenario.customer)
                #expect(image.status == 200)
                #expect(image.contentType == type)
                #expect(Array(image.body).sha256Hex == digest)
                #expect(try await server.send(.get, url, token: scenario.dispatcher).status == 200)
                #expect(try await server.send(.get, url, token: rider).status == 200)
                #expect(try await server.send(.get, url, token: try await server.token(.customer)).status == 404)
                #expect(try await server.send(.get, url, token: try await server.token(.rider)).status == 404)
            }
            #expect(try await scenario.status(taskId, "DELIVERED", rider: rider).status == 200)
        }
    }

    @Test(
        "dispatcher cancels an assigned order: task CANCELLED, rider ONLINE and told, next tap ORDER_CANCELLED",
        arguments: StoreKind.available)
    func cancelDuringDelivery(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (riderId, rider, taskId) = try await scenario.assigned()
            #expect(try await scenario.status(taskId, "ARRIVED_AT_STORE", rider: rider).status == 200)
            let cancelled = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/cancel", token: scenario.dispatcher,
                json: ["reason": "shop closed"])
            #expect(cancelled["status"] as? String == "CANCELLED")
            let me = try await server.send(.get, "/api/v1/rider/me", token: rider)
            #expect(me["availability"] as? String == "ONLINE")
            let before = try await scenario.snapshot()
            let next = try await scenario.status(taskId, "PICKED_UP", rider: rider)
            #expect(next.status == 409)
            #expect(next.code == "ORDER_CANCELLED")
            #expect(try await scenario.snapshot() == before)
            let told = try await server.repository.outbox(orderId: UUID(uuidString: scenario.orderId)!)
                .filter { $0.recipientId == riderId }
            #expect(told.contains { $0.title == "Delivery cancelled" })
        }
    }
}

extension Array where Element == UInt8 {
    var sha256Hex: String {
        var hasher = SHA256Hasher()
        return hasher.hex(self)
    }
}
