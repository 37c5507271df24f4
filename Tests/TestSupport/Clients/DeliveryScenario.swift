import Foundation
import LogisticsCore
import Testing

/// An order that is ready, and riders who are online: the starting point of most delivery tests.
struct DeliveryScenario {
    let server: TestServer
    let dispatcher: String
    let orderId: String
    let customerId: UUID
    let customer: String

    static func ready(_ server: TestServer, podType: String = "PHOTO", customerLat: Double = 43.7347) async throws
        -> DeliveryScenario
    {
        let dispatcher = try await server.token(.dispatcher)
        let customerId = UUID()
        let created = try await server.send(
            .post, "/api/v1/orders", token: dispatcher,
            json: Fixtures.order(customerId: customerId, podType: podType, lat: customerLat))
        let orderId = try #require(created["orderId"] as? String)
        let ready = try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: dispatcher)
        #expect(ready.status == 200)
        return DeliveryScenario(
            server: server, dispatcher: dispatcher, orderId: orderId, customerId: customerId,
            customer: try await server.token(.customer, customerId))
    }

    /// A rider who has gone online; returns the rider's id and token.
    func onlineRider(name: String = "Test Rider") async throws -> (id: UUID, token: String) {
        let id = UUID()
        let token = try await server.token(.rider, id, name: name)
        let reply = try await server.send(.put, "/api/v1/rider/availability", token: token, json: ["status": "ONLINE"])
        #expect(reply.status == 200)
        return (id, token)
    }

    /// Offers the order to the riders; returns offer ids by rider.
    func offer(to riders: [UUID]) async throws -> [UUID: String] {
        let reply = try await server.send(
            .post, "/api/v1/orders/\(orderId)/offers", token: dispatcher,
            json: ["riderIds": riders.map(\.lowercased)])
        #expect(reply.status == 201)
        var offers: [UUID: String] = [:]
        for offer in reply["offers"] as? [[String: Any]] ?? [] {
            offers[UUID(uuidString: offer["riderId"] as! String)!] = offer["offerId"] as? String
        }
        return offers
    }

    /// One rider, offered and accepted: returns the rider and the task id.
    func assigned() async throws -> (riderId: UUID, rider: String, taskId: String) {
        let rider = try await onlineRider()
        let offers = try await offer(to: [rider.id])
        let accepted = try await server.send(
            .post, "/api/v1/rider/offers/\(offers[rider.id]!)/accept", token: rider.token)
        #expect(accepted.status == 200)
        return (rider.id, rider.token, try #require(accepted["taskId"] as? String))
    }

    @discardableResult
    func status(
        _ taskId: String, _ status: String, rider: String, lat: Double = 43.7347, lon: Double = 7.4240,
        occurredAt: Date? = nil, eventId: UUID = UUID(), extra: [String: Any] = [:]
    ) async throws -> Reply {
        var body: [String: Any] = [
            "status": status, "location": ["lat": lat, "lon": lon, "accuracyM": 5],
            "occurredAt": RFC3339.string(from: occurredAt ?? server.clock.now()), "eventId": eventId.lowercased,
        ]
        for (key, value) in extra { body[key] = value }
        return try await server.send(.patch, "/api/v1/rider/tasks/\(taskId)/status", token: rider, json: body)
    }

    /// Drives an assigned task to ARRIVED_AT_DESTINATION at the customer's door.
    func arrive(_ taskId: String, rider: String) async throws {
        for status in ["ARRIVED_AT_STORE", "PICKED_UP", "ARRIVED_AT_DESTINATION"] {
            let reply = try await self.status(taskId, status, rider: rider)
            #expect(reply.status == 200, "\(status): \(reply.text)")
        }
    }

    /// At the door: proves the delivery with the code the customer sees, then marks it DELIVERED.
    func deliverWithCode(_ taskId: String, rider: String) async throws {
        let order = try await server.send(.get, "/api/v1/customer/orders/\(orderId)", token: customer)
        let code = try #require(order["deliveryOtp"] as? String)
        let proof = try await server.send(
            .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider,
            json: [
                "type": "OTP", "value": code, "capturedAt": RFC3339.string(from: server.clock.now()),
                "location": ["lat": 43.7347, "lon": 7.4240, "accuracyM": 4],
            ])
        #expect(proof.status == 200)
        #expect(try await status(taskId, "DELIVERED", rider: rider).status == 200)
    }

    /// What the database holds for the order, to show a refused call changed nothing.
    func snapshot() async throws -> [Int] {
        [
            try await server.count("order_events", "order_id = ?", [.text(orderId)]),
            try await server.count("outbox", "order_id = ?", [.text(orderId)]),
            try await server.count("tasks", "order_id = ?", [.text(orderId)]),
            // Not OPEN offers: the background sweeper may expire those at any time, as it should.
            try await server.count("offers", "order_id = ? AND status IN ('ACCEPTED', 'DECLINED')", [.text(orderId)]),
            try await server.count("riders", "availability = 'ON_TASK'"),
        ]
    }
}

enum Photos {
    /// A real 1×1 PNG.
    static let png = Array(
        Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
        )!)
    /// A real 1×1 baseline JPEG.
    static let jpeg = Array(
        Data(
            base64Encoded:
                "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/yQALCAABAAEBAREA/8wABgAQEAX/2gAIAQEAAD8A0s8g/9k="
        )!)

    static func multipart(
        photo: [UInt8], filename: String = "photo.jpg", partType: String = "image/jpeg", fields: [String: String]
    ) -> (body: Data, contentType: String) {
        let boundary = "----riderkit\(UUID().uuidString.prefix(8))"
        var body = Data()
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Data(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"\(filename)\"\r\nContent-Type: \(partType)\r\n\r\n"
                .utf8)
        body += Data(photo)
        body += Data("\r\n--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    static func fields(_ server: TestServer) -> [String: String] {
        ["capturedAt": RFC3339.string(from: server.clock.now()), "lat": "43.7347", "lon": "7.4240", "accuracyM": "6.5"]
    }
}
