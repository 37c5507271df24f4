import Foundation
import LogisticsCore
import LogisticsStore
import Testing

@testable import TestSupport

/// Two owners' worlds on one server, built through the API: each with its vendor, customer and rider, an order
/// at the customer's door with a photo proof, a second order offered to the rider, devices, a tracking link and a
/// rider fix. The access matrix asks with A's principals for B's things.
struct AccessWorld {
    /// One owner's people and things, and every string of theirs another owner must never read.
    struct Party {
        let vendorId: UUID
        let customerId: UUID
        let riderId: UUID
        let vendor: String
        let customer: String
        let rider: String
        /// At ARRIVED_AT_DESTINATION with an accepted photo: trackable, with a task, a proof and an accepted offer.
        let orderId: String
        let taskId: String
        let acceptedOfferId: String
        let podId: String
        /// READY_FOR_PICKUP, offered to the rider and still open.
        let openOrderId: String
        let openOfferId: String
        let riderDeviceId: String
        let customerDeviceId: String
        let trackingLink: String
        let trackingLinkId: String
        let secrets: [String]
    }

    /// Names, numbers and places that say whose world is whose.
    struct People {
        let label: String
        let customerName: String
        let phone: String
        let address: String
        let notes: String
        let vendorName: String
        let vendorAddress: String
        let riderName: String

        func order(externalRef: String, customerId: UUID) -> [String: Any] {
            [
                "externalRef": externalRef,
                "vendor": [
                    "name": vendorName, "address": vendorAddress, "location": ["lat": 43.7396, "lon": 7.4276],
                ],
                "customer": [
                    "id": customerId.lowercased, "name": customerName, "phone": phone, "address": address,
                    "location": ["lat": 43.7347, "lon": 7.4240],
                ],
                "podType": "PHOTO", "notes": notes,
            ]
        }
    }

    static let peopleA = People(
        label: "AAA", customerName: "Asha Rao", phone: "+91 98200 11111", address: "12 Marine Drive",
        notes: "Gate code 1111", vendorName: "Anand Sweets", vendorAddress: "4 Colaba Causeway",
        riderName: "Arjun Mehta")
    static let peopleB = People(
        label: "BBB", customerName: "Bettina Koch", phone: "+49 151 2222 3333", address: "9 Bahnhofstrasse",
        notes: "Leave with the concierge Berta", vendorName: "Bäckerei Brandt", vendorAddress: "7 Brunnengasse",
        riderName: "Bruno Bianchi")

    let server: TestServer
    let a: Party
    /// Whose ids the probes carry: B, or A itself for the rider's pass over their own things.
    private(set) var b: Party
    let dispatcher: String
    let admin: String
    let webhookId: String

    static func build(_ server: TestServer) async throws -> AccessWorld {
        let admin = try await server.token(.admin)
        let webhook = try await server.send(
            .post, "/api/v1/webhooks", token: admin,
            json: ["url": "http://127.0.0.1:9/hooks", "events": ["*"], "secret": "a-secret-of-24-bytes!!!"])
        #expect(webhook.status == 201, "\(webhook.text)")
        return AccessWorld(
            server: server, a: try await party(peopleA, server), b: try await party(peopleB, server),
            dispatcher: try await server.token(.dispatcher), admin: admin,
            webhookId: try #require(webhook["webhookId"] as? String))
    }

    private static func party(_ people: People, _ server: TestServer) async throws -> Party {
        let (vendorId, customerId, riderId) = (UUID(), UUID(), UUID())
        let vendor = try await server.token(.vendor, vendorId)
        let customer = try await server.token(.customer, customerId, name: people.customerName)
        let rider = try await server.token(.rider, riderId, name: people.riderName)
        func expect(_ reply: Reply, _ status: Int, _ what: String) {
            #expect(reply.status == status, "\(people.label) \(what): \(reply.text)")
        }
        expect(
            try await server.send(.put, "/api/v1/rider/availability", token: rider, json: ["status": "ONLINE"]), 200,
            "online")

        func readyOrder(_ externalRef: String) async throws -> String {
            let created = try await server.send(
                .post, "/api/v1/orders", token: vendor,
                json: people.order(externalRef: externalRef, customerId: customerId))
            expect(created, 201, "order")
            let orderId = try #require(created["orderId"] as? String)
            expect(try await server.send(.post, "/api/v1/orders/\(orderId)/ready", token: vendor), 200, "ready")
            let offers = try await server.send(
                .post, "/api/v1/orders/\(orderId)/offers", token: vendor, json: ["riderIds": [riderId.lowercased]])
            expect(offers, 201, "offer")
            _ = try #require((offers["offers"] as? [[String: Any]])?.first?["offerId"] as? String)
            return orderId
        }
        let orderId = try await readyOrder("\(people.label)-REF-1")
        let openOrderId = try await readyOrder("\(people.label)-REF-2")
        let offers = try await server.send(.get, "/api/v1/rider/offers", token: rider)
        var offerOfOrder: [String: String] = [:]
        for offer in offers["offers"] as? [[String: Any]] ?? [] {
            offerOfOrder[offer["orderId"] as? String ?? ""] = offer["offerId"] as? String
        }
        let acceptedOfferId = try #require(offerOfOrder[orderId])
        let accepted = try await server.send(.post, "/api/v1/rider/offers/\(acceptedOfferId)/accept", token: rider)
        expect(accepted, 200, "accept")
        let taskId = try #require(accepted["taskId"] as? String)
        for status in ["ARRIVED_AT_STORE", "PICKED_UP", "ARRIVED_AT_DESTINATION"] {
            let tap: [String: Any] = [
                "status": status, "location": ["lat": 43.7347, "lon": 7.4240, "accuracyM": 5],
                "occurredAt": RFC3339.string(from: server.clock.now()), "eventId": UUID().lowercased,
            ]
            expect(
                try await server.send(.patch, "/api/v1/rider/tasks/\(taskId)/status", token: rider, json: tap), 200,
                status)
        }
        let form = Photos.multipart(photo: Photos.jpeg, fields: Photos.fields(server))
        let proof = try await server.send(
            .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: form.body, contentType: form.contentType)
        expect(proof, 201, "photo")
        let fix: [String: Any] = [
            "lat": 43.7350, "lon": 7.4241, "accuracyM": 5, "speedMps": 4, "headingDeg": 90,
            "recordedAt": RFC3339.string(from: server.clock.now()),
        ]
        expect(
            try await server.send(.post, "/api/v1/rider/locations", token: rider, json: ["fixes": [fix]]), 202, "fix")

        let riderDeviceId = "\(people.label.lowercased())-rider-phone"
        let customerDeviceId = "\(people.label.lowercased())-customer-phone"
        for (token, deviceId) in [(rider, riderDeviceId), (customer, customerDeviceId)] {
            let device = try await server.send(
                .put, "/api/v1/me/devices/\(deviceId)", token: token,
                json: ["platform": "android", "pushToken": "\(deviceId)-push-token"])
            expect(device, 200, "device")
        }
        let link = try await server.send(.post, "/api/v1/orders/\(orderId)/tracking-links", token: customer)
        expect(link, 201, "tracking link")
        let trackingLink = try #require(link["token"] as? String)
        let trackingLinkId = try #require(link["linkId"] as? String)

        let podId = try #require(proof["podId"] as? String)
        let openOfferId = try #require(offerOfOrder[openOrderId])
        let ids = [
            vendorId.lowercased, customerId.lowercased, riderId.lowercased, orderId, openOrderId, taskId,
            acceptedOfferId, openOfferId, podId, trackingLinkId,
        ]
        let digits = people.phone.filter(\.isNumber)
        let secrets =
            ids + ids.map { $0.replacingOccurrences(of: "-", with: "") }
            + [
                people.customerName, people.phone, digits, "*" + digits.suffix(4),
                people.address, people.notes, people.vendorName, people.vendorAddress, people.riderName,
                "\(people.label)-REF", riderDeviceId, customerDeviceId, "\(riderDeviceId)-push-token",
                "\(customerDeviceId)-push-token", trackingLink, try #require(proof["sha256"] as? String),
            ]
        return Party(
            vendorId: vendorId, customerId: customerId, riderId: riderId, vendor: vendor, customer: customer,
            rider: rider, orderId: orderId, taskId: taskId, acceptedOfferId: acceptedOfferId, podId: podId,
            openOrderId: openOrderId, openOfferId: openOfferId, riderDeviceId: riderDeviceId,
            customerDeviceId: customerDeviceId, trackingLink: trackingLink, trackingLinkId: trackingLinkId,
            secrets: secrets)
    }

    /// The probes with A's own ids in them.
    var aboutOwnThings: AccessWorld {
        var world = self
        world.b = a
        return world
    }

    /// Every customer's full phone, which no rider gets on any route, not even for their own task.
    var fullPhones: [String] {
        [Self.peopleA.phone, Self.peopleB.phone] + [Self.peopleA, Self.peopleB].map { $0.phone.filter(\.isNumber) }
    }

    /// A's principal, staff, or no token at all.
    func token(_ caller: Caller) -> String? {
        switch caller {
        case .rider: a.rider
        case .customer: a.customer
        case .vendor: a.vendor
        case .dispatcher: dispatcher
        case .admin: admin
        case .anonymous: nil
        }
    }

    /// B's strings in `body` that the request itself did not carry (a problem's `instance` echoes the path).
    func leaks(in body: String, sent: String) -> [String] {
        b.secrets.filter { !$0.isEmpty && body.contains($0) && !sent.contains($0) }
    }

    /// What B's world holds, to show that nothing A's principals asked changed it.
    func fingerprintOfB() async throws -> [String: Int] {
        let orders: [SQLValue] = [.text(b.orderId), .text(b.openOrderId)]
        let people: [SQLValue] = [.text(b.riderId.lowercased), .text(b.customerId.lowercased)]
        return [
            "events": try await server.count("order_events", "order_id IN (?, ?)", orders),
            "outbox": try await server.count("outbox", "order_id IN (?, ?)", orders),
            "open offers": try await server.count("offers", "order_id IN (?, ?) AND status = 'OPEN'", orders),
            "task at the door": try await server.count(
                "tasks", "id = ? AND status = 'ARRIVED_AT_DESTINATION' AND otp_failed_attempts = 0", [.text(b.taskId)]),
            "issues": try await server.count("delivery_issues", "order_id IN (?, ?)", orders),
            "proofs": try await server.count("proofs_of_delivery", "order_id IN (?, ?)", orders),
            "devices": try await server.count("devices", "owner_id IN (?, ?)", people),
            "rider on task": try await server.count(
                "riders", "id = ? AND availability = 'ON_TASK' AND suspended = 0", [.text(b.riderId.lowercased)]),
            "fixes": try await server.count("rider_locations", "rider_id = ?", [.text(b.riderId.lowercased)]),
        ]
    }
}
