import Foundation
import LogisticsCore

@testable import TestSupport

/// Who asks in the matrix: one of owner A's principals, staff, or nobody.
enum Caller: String, CaseIterable, CustomStringConvertible {
    case rider, customer, vendor, dispatcher, admin, anonymous

    var description: String { rawValue }
    var isStaff: Bool { self == .dispatcher || self == .admin }
}

/// What a caller holding only A's rights must get when it names B's things.
enum Expected: ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// Refused with this status, saying nothing of B.
    case refused(Int)
    /// The route names nothing of B's: the caller's own answer, with one of these statuses and nothing of B in it.
    case own(Set<Int>)
    /// Staff may see and change everything: anything but 401 and 403.
    case staff
    /// Public (health, metrics, the document, map tiles): any status, nothing of B in it.
    case open

    init(integerLiteral status: Int) { self = .refused(status) }

    static func own(_ statuses: Int...) -> Expected { .own(Set(statuses)) }

    var description: String {
        switch self {
        case .refused(let status): "refused \(status)"
        case .own(let statuses): "own answer \(statuses.sorted())"
        case .staff: "staff may"
        case .open: "public"
        }
    }
}

/// One request, with B's ids in it.
struct Probe {
    var path: String
    var json: Any? = nil
    var form: (body: Data, contentType: String)? = nil
}

/// One route: what to send, and what each caller gets.
struct MatrixRow {
    let probe: (AccessWorld) -> Probe
    let expected: [Caller: Expected]

    init(
        _ probe: @escaping (AccessWorld) -> Probe, rider: Expected, customer: Expected, vendor: Expected,
        dispatcher: Expected, admin: Expected, anonymous: Expected
    ) {
        self.probe = probe
        expected = [
            .rider: rider, .customer: customer, .vendor: vendor, .dispatcher: dispatcher, .admin: admin,
            .anonymous: anonymous,
        ]
    }

    /// The same answer for everyone: public routes.
    static func open(_ probe: @escaping (AccessWorld) -> Probe) -> MatrixRow {
        MatrixRow(
            probe, rider: .open, customer: .open, vendor: .open, dispatcher: .open, admin: .open, anonymous: .open)
    }

    /// Riders' own routes about B's task or offer: another rider's is 403 (**R** RDR-018-AC-05), any other role 403.
    static func ridersOnly(_ probe: @escaping (AccessWorld) -> Probe, rider: Expected = 403) -> MatrixRow {
        MatrixRow(probe, rider: rider, customer: 403, vendor: 403, dispatcher: 403, admin: 403, anonymous: 401)
    }

    /// Staff routes about an order: every other role is refused for the role, before the order is looked at.
    static func staffOnly(_ probe: @escaping (AccessWorld) -> Probe) -> MatrixRow {
        MatrixRow(probe, rider: 403, customer: 403, vendor: 403, dispatcher: .staff, admin: .staff, anonymous: 401)
    }

    static func adminOnly(_ probe: @escaping (AccessWorld) -> Probe) -> MatrixRow {
        MatrixRow(probe, rider: 403, customer: 403, vendor: 403, dispatcher: 403, admin: .staff, anonymous: 401)
    }
}

/// Every registered route, by `METHOD /path` as the route catalog names it. A route the server serves without a
/// row here fails the matrix test: decide what each role gets and add it.
enum AccessMatrix {
    static func tap(_ world: AccessWorld) -> [String: Any] {
        [
            "status": "DELIVERED", "location": ["lat": 43.7347, "lon": 7.4240, "accuracyM": 5],
            "occurredAt": RFC3339.string(from: world.server.clock.now()), "eventId": UUID().lowercased,
        ]
    }

    static var rows: [String: MatrixRow] {
        [
            // Orders: a customer or vendor never learns that another's order exists (404); riders and vendors have no
            // business with the log, and riders none with the order document (403, the role).
            "POST /api/v1/orders": MatrixRow(
                {
                    Probe(
                        path: "/api/v1/orders",
                        json: AccessWorld.peopleA.order(externalRef: "AAA-REF-3", customerId: $0.a.customerId))
                },
                rider: 403, customer: 403, vendor: .own(201), dispatcher: .staff, admin: .staff, anonymous: 401),
            // A store lists its own orders only: asking for B's store still answers A's (nothing of B in it).
            "GET /api/v1/orders": MatrixRow(
                { Probe(path: "/api/v1/orders?vendorId=\($0.b.vendorId.lowercased)") },
                rider: 403, customer: 403, vendor: .own(200), dispatcher: .staff, admin: .staff, anonymous: 401),
            "GET /api/v1/orders/{orderId}": MatrixRow(
                { Probe(path: "/api/v1/orders/\($0.b.orderId)") },
                rider: 403, customer: 404, vendor: 404, dispatcher: .staff, admin: .staff, anonymous: 401),
            "GET /api/v1/orders/{orderId}/events": .staffOnly { Probe(path: "/api/v1/orders/\($0.b.orderId)/events") },
            "GET /api/v1/events": .staffOnly { _ in Probe(path: "/api/v1/events") },
            "GET /api/v1/orders/{orderId}/offers": .staffOnly { Probe(path: "/api/v1/orders/\($0.b.orderId)/offers") },
            "GET /api/v1/orders/{orderId}/issues": .staffOnly { Probe(path: "/api/v1/orders/\($0.b.orderId)/issues") },
            "GET /api/v1/orders/{orderId}/path": .staffOnly { Probe(path: "/api/v1/orders/\($0.b.orderId)/path") },
            "GET /api/v1/orders/{orderId}/events.csv": .staffOnly {
                Probe(path: "/api/v1/orders/\($0.b.orderId)/events.csv")
            },
            "POST /api/v1/orders/{orderId}/ready": MatrixRow(
                { Probe(path: "/api/v1/orders/\($0.b.openOrderId)/ready") },
                rider: 403, customer: 403, vendor: 404, dispatcher: .staff, admin: .staff, anonymous: 401),
            "POST /api/v1/orders/{orderId}/ready/undo": MatrixRow(
                { Probe(path: "/api/v1/orders/\($0.b.openOrderId)/ready/undo") },
                rider: 403, customer: 403, vendor: 404, dispatcher: .staff, admin: .staff, anonymous: 401),
            // Who is coming for the parcel: the store's own orders and staff; another store's order does not exist.
            "GET /api/v1/orders/{orderId}/pickup": MatrixRow(
                { Probe(path: "/api/v1/orders/\($0.b.orderId)/pickup") },
                rider: 403, customer: 403, vendor: 404, dispatcher: .staff, admin: .staff, anonymous: 401),
            "POST /api/v1/orders/{orderId}/cancel": MatrixRow(
                { Probe(path: "/api/v1/orders/\($0.b.orderId)/cancel", json: ["reason": "not mine"]) },
                rider: 404, customer: 404, vendor: 404, dispatcher: .staff, admin: .staff, anonymous: 401),
            "POST /api/v1/orders/{orderId}/offers": MatrixRow(
                {
                    Probe(
                        path: "/api/v1/orders/\($0.b.openOrderId)/offers", json: ["riderIds": [$0.a.riderId.lowercased]]
                    )
                },
                rider: 403, customer: 403, vendor: 404, dispatcher: .staff, admin: .staff, anonymous: 401),
            "POST /api/v1/orders/{orderId}/pod-override": .staffOnly {
                Probe(path: "/api/v1/orders/\($0.b.orderId)/pod-override", json: ["reason": "not mine"])
            },
            "POST /api/v1/orders/{orderId}/reassign": .staffOnly {
                Probe(path: "/api/v1/orders/\($0.b.orderId)/reassign", json: ["reason": "not mine"])
            },
            "POST /api/v1/orders/{orderId}/return-to-store": .staffOnly {
                Probe(path: "/api/v1/orders/\($0.b.orderId)/return-to-store", json: ["reason": "not mine"])
            },
            "POST /api/v1/orders/{orderId}/failure-approval": .staffOnly {
                Probe(path: "/api/v1/orders/\($0.b.orderId)/failure-approval", json: ["reason": "not mine"])
            },
            "GET /api/v1/orders/{orderId}/notifications": .staffOnly {
                Probe(path: "/api/v1/orders/\($0.b.orderId)/notifications")
            },
            "POST /api/v1/orders/{orderId}/tracking-links": MatrixRow(
                { Probe(path: "/api/v1/orders/\($0.b.orderId)/tracking-links") },
                rider: 403, customer: 404, vendor: 404, dispatcher: .staff, admin: .staff, anonymous: 401),
            "DELETE /api/v1/orders/{orderId}/tracking-links/{linkId}": MatrixRow(
                { Probe(path: "/api/v1/orders/\($0.b.orderId)/tracking-links/\($0.b.trackingLinkId)") },
                rider: 403, customer: 404, vendor: 404, dispatcher: .staff, admin: .staff, anonymous: 401),

            // The customer's own views: customers only; another customer's order does not exist.
            "GET /api/v1/customer/orders/{orderId}": MatrixRow(
                { Probe(path: "/api/v1/customer/orders/\($0.b.orderId)") },
                rider: 403, customer: 404, vendor: 403, dispatcher: 403, admin: 403, anonymous: 401),
            "GET /api/v1/customer/orders/{orderId}/tracking": MatrixRow(
                { Probe(path: "/api/v1/customer/orders/\($0.b.orderId)/tracking") },
                rider: 403, customer: 404, vendor: 403, dispatcher: 403, admin: 403, anonymous: 401),

            // The rider's own routes: what names no id answers for the caller alone; B's task or offer is 403.
            "GET /api/v1/rider/me": .ridersOnly({ _ in Probe(path: "/api/v1/rider/me") }, rider: .own(200)),
            // A is on a task, so A's availability cannot change (409); nothing of B either way.
            "PUT /api/v1/rider/availability": .ridersOnly(
                { _ in Probe(path: "/api/v1/rider/availability", json: ["status": "ONLINE"]) }, rider: .own(409)),
            "GET /api/v1/rider/offers": .ridersOnly({ _ in Probe(path: "/api/v1/rider/offers") }, rider: .own(200)),
            "GET /api/v1/rider/tasks/active": .ridersOnly(
                { _ in Probe(path: "/api/v1/rider/tasks/active") }, rider: .own(200)),
            "POST /api/v1/rider/locations": .ridersOnly(
                { world in
                    let fix: [String: Any] = [
                        "lat": 43.7351, "lon": 7.4242, "accuracyM": 5,
                        "recordedAt": RFC3339.string(from: world.server.clock.now()),
                    ]
                    return Probe(path: "/api/v1/rider/locations", json: ["fixes": [fix]])
                }, rider: .own(202)),
            "POST /api/v1/rider/offers/{offerId}/accept": .ridersOnly {
                Probe(path: "/api/v1/rider/offers/\($0.b.openOfferId)/accept")
            },
            "POST /api/v1/rider/offers/{offerId}/decline": .ridersOnly {
                Probe(path: "/api/v1/rider/offers/\($0.b.openOfferId)/decline")
            },
            "PATCH /api/v1/rider/tasks/{taskId}/status": .ridersOnly {
                Probe(path: "/api/v1/rider/tasks/\($0.b.taskId)/status", json: tap($0))
            },
            "POST /api/v1/rider/tasks/{taskId}/issues": .ridersOnly {
                Probe(path: "/api/v1/rider/tasks/\($0.b.taskId)/issues", json: ["type": "OTHER", "note": "not mine"])
            },
            "POST /api/v1/rider/tasks/{taskId}/pod": .ridersOnly {
                Probe(
                    path: "/api/v1/rider/tasks/\($0.b.taskId)/pod",
                    form: Photos.multipart(photo: Photos.jpeg, fields: Photos.fields($0.server)))
            },
            "GET /api/v1/rider/tasks/{taskId}/route": .ridersOnly {
                Probe(path: "/api/v1/rider/tasks/\($0.b.taskId)/route?from=43.7390,7.4270")
            },
            // The photo: its order's customer, its task's rider and staff; to anyone else it does not exist.
            "GET /api/v1/pods/{podId}/image": MatrixRow(
                { Probe(path: "/api/v1/pods/\($0.b.podId)/image") },
                rider: 404, customer: 404, vendor: 404, dispatcher: .staff, admin: .staff, anonymous: 401),

            // Devices are per owner: A's PUT under B's install id registers A's own install and leaves B's alone, and
            // A's DELETE removes at most that (B's devices are counted after the run).
            "PUT /api/v1/me/devices/{deviceId}": MatrixRow(
                {
                    Probe(
                        path: "/api/v1/me/devices/\($0.b.customerDeviceId)",
                        json: ["platform": "android", "pushToken": "a-own-push-token"])
                },
                rider: .own(200), customer: .own(200), vendor: 403, dispatcher: 403, admin: 403, anonymous: 401),
            "DELETE /api/v1/me/devices/{deviceId}": MatrixRow(
                { Probe(path: "/api/v1/me/devices/\($0.b.riderDeviceId)") },
                rider: .own(204, 404), customer: .own(204, 404), vendor: 403, dispatcher: 403, admin: 403,
                anonymous: 401),

            // Dispatch and administration.
            "GET /api/v1/riders": .staffOnly { _ in Probe(path: "/api/v1/riders") },
            "GET /api/v1/riders/{riderId}/trail": .staffOnly {
                Probe(path: "/api/v1/riders/\($0.b.riderId.lowercased)/trail")
            },
            "GET /api/v1/riders/{riderId}/ratings": .staffOnly {
                Probe(path: "/api/v1/riders/\($0.b.riderId.lowercased)/ratings")
            },
            "GET /api/v1/routes": .staffOnly { _ in Probe(path: "/api/v1/routes?from=43.7390,7.4270&to=43.7347,7.4240")
            },
            "POST /api/v1/matrix": .staffOnly { _ in
                Probe(path: "/api/v1/matrix", json: ["sources": [["lat": 43.7390, "lon": 7.4270]]])
            },
            "POST /api/v1/match": .staffOnly { _ in
                Probe(
                    path: "/api/v1/match",
                    json: ["trace": [["lat": 43.7390, "lon": 7.4270, "recordedAt": "2026-11-25T10:00:00Z"]]])
            },
            "POST /api/v1/plans": .staffOnly { _ in
                Probe(
                    path: "/api/v1/plans",
                    json: [
                        "vehicles": [["id": 1, "start": [7.4270, 43.7390]]],
                        "jobs": [["id": 1, "location": [7.4240, 43.7347]]], "options": ["time_limit": 0.1],
                    ])
            },
            "POST /api/v1/traffic/speeds": .adminOnly { _ in
                Probe(
                    path: "/api/v1/traffic/speeds", json: ["speeds": [["fromNode": 1, "toNode": 2, "speedKmh": 30]]])
            },
            // Dispatchers run the fleet: they suspend and reinstate riders too (`PeopleAccess`).
            "POST /api/v1/riders/{riderId}/suspend": .staffOnly {
                Probe(path: "/api/v1/riders/\($0.b.riderId.lowercased)/suspend")
            },
            "POST /api/v1/riders/{riderId}/reinstate": .staffOnly {
                Probe(path: "/api/v1/riders/\($0.b.riderId.lowercased)/reinstate")
            },
            "POST /api/v1/webhooks": .adminOnly { _ in
                Probe(
                    path: "/api/v1/webhooks",
                    json: ["url": "http://127.0.0.1:9/other", "events": ["*"], "secret": "another-secret-of-24-bytes"])
            },
            "GET /api/v1/webhooks": .adminOnly { _ in Probe(path: "/api/v1/webhooks") },
            "DELETE /api/v1/webhooks/{webhookId}": .adminOnly { Probe(path: "/api/v1/webhooks/\($0.webhookId)") },
            "GET /api/v1/webhooks/dead-letters": .adminOnly { _ in Probe(path: "/api/v1/webhooks/dead-letters") },
            "POST /api/v1/webhooks/dead-letters/{deliveryId}/redeliver": .adminOnly { _ in
                Probe(path: "/api/v1/webhooks/dead-letters/1/redeliver")
            },

            // People and sign-in: staff add and read people; only admins add stores and staff, read and end
            // sessions. Signing in needs no token and answers everyone alike.
            "POST /api/v1/riders": .staffOnly { _ in
                Probe(
                    path: "/api/v1/riders",
                    json: ["name": "Matrix Rider", "phone": "+37799770011", "vehicle": "BICYCLE"])
            },
            "GET /api/v1/riders/{riderId}": .staffOnly { Probe(path: "/api/v1/riders/\($0.b.riderId.lowercased)") },
            "PATCH /api/v1/riders/{riderId}": .staffOnly {
                Probe(path: "/api/v1/riders/\($0.b.riderId.lowercased)", json: ["vehicle": "CAR"])
            },
            "POST /api/v1/vendors": .adminOnly { _ in
                Probe(
                    path: "/api/v1/vendors",
                    json: [
                        "name": "Matrix Store", "address": "1 Rue Grimaldi",
                        "location": ["lat": 43.7310, "lon": 7.4190],
                    ])
            },
            "GET /api/v1/vendors": .staffOnly { _ in Probe(path: "/api/v1/vendors") },
            "GET /api/v1/vendors/{vendorId}": MatrixRow(
                { Probe(path: "/api/v1/vendors/\($0.b.vendorId.lowercased)") },
                rider: 403, customer: 403, vendor: 404, dispatcher: .staff, admin: .staff, anonymous: 401),
            "PATCH /api/v1/vendors/{vendorId}": .adminOnly {
                Probe(path: "/api/v1/vendors/\($0.b.vendorId.lowercased)", json: ["phone": "+37793150099"])
            },
            "POST /api/v1/vendors/{vendorId}/staff": .adminOnly {
                Probe(
                    path: "/api/v1/vendors/\($0.b.vendorId.lowercased)/staff",
                    json: ["name": "Matrix Staff", "phone": "+37799770022"])
            },
            "POST /api/v1/staff": .adminOnly { _ in
                Probe(
                    path: "/api/v1/staff",
                    json: ["name": "Matrix Dispatcher", "phone": "+37799770033", "role": "dispatcher"])
            },
            "GET /api/v1/people": .staffOnly { _ in Probe(path: "/api/v1/people") },
            "GET /api/v1/people/{personId}": .adminOnly { Probe(path: "/api/v1/people/\($0.b.riderId.lowercased)") },
            "PATCH /api/v1/people/{personId}": .adminOnly {
                Probe(path: "/api/v1/people/\($0.b.riderId.lowercased)", json: ["vehicle": "CAR"])
            },
            "GET /api/v1/people/{personId}/sessions": .adminOnly {
                Probe(path: "/api/v1/people/\($0.b.riderId.lowercased)/sessions")
            },
            "DELETE /api/v1/sessions/{sessionId}": .adminOnly { _ in
                Probe(path: "/api/v1/sessions/\(UUID().lowercased)")
            },
            "POST /api/v1/auth/code": .open { _ in Probe(path: "/api/v1/auth/code", json: ["phone": "+37799770044"]) },
            "POST /api/v1/auth/token": .open { _ in
                Probe(path: "/api/v1/auth/token", json: ["phone": "+37799770044", "code": "000000"])
            },
            "POST /api/v1/auth/refresh": .open { _ in
                Probe(path: "/api/v1/auth/refresh", json: ["refreshToken": "rft_" + String(repeating: "A", count: 43)])
            },
            // Twilio's callbacks carry Twilio's signature, not a token; with another SMS provider there is nothing there.
            "POST /api/v1/providers/twilio/status": .open { _ in
                Probe(
                    path: "/api/v1/providers/twilio/status",
                    form: (Data("MessageSid=SM1&MessageStatus=delivered".utf8), "application/x-www-form-urlencoded"))
            },
            "POST /api/v1/providers/twilio/inbound": .open { _ in
                Probe(
                    path: "/api/v1/providers/twilio/inbound",
                    form: (Data("From=%2B919820012345&Body=STOP".utf8), "application/x-www-form-urlencoded"))
            },
            // Meta's webhook carries Meta's signature; without WhatsApp's Cloud API there is nothing there.
            "GET /api/v1/providers/whatsapp": .open { _ in
                Probe(path: "/api/v1/providers/whatsapp?hub.mode=subscribe&hub.verify_token=x&hub.challenge=1")
            },
            "POST /api/v1/providers/whatsapp": .open { _ in
                Probe(path: "/api/v1/providers/whatsapp", json: ["object": "whatsapp_business_account", "entry": []])
            },
            // Development tokens have no session to end: 409 for every role, saying so.
            "POST /api/v1/auth/logout": MatrixRow(
                { _ in Probe(path: "/api/v1/auth/logout") },
                rider: .own(409), customer: .own(409), vendor: .own(409), dispatcher: .own(409), admin: .own(409),
                anonymous: 401),

            // Public: no token is read, and nothing of anyone's orders is in them.
            "GET /health/live": .open { _ in Probe(path: "/health/live") },
            "GET /health/ready": .open { _ in Probe(path: "/health/ready") },
            "GET /metrics": .open { _ in Probe(path: "/metrics") },
            "GET /openapi.json": .open { _ in Probe(path: "/openapi.json") },
            "GET /map/tiles/{z}/{x}/{y}": .open { _ in Probe(path: "/map/tiles/14/8529/5975") },
            // A tracking link is its own key: B's order id under A's link's signature opens nothing, for anyone.
            "GET /track/{token}/snapshot": MatrixRow(
                { Probe(path: "/track/\(forgedLink($0))/snapshot") },
                rider: 404, customer: 404, vendor: 404, dispatcher: 404, admin: 404, anonymous: 404),
            "POST /track/{token}/rating": MatrixRow(
                { Probe(path: "/track/\(forgedLink($0))/rating", json: ["stars": 5]) },
                rider: 404, customer: 404, vendor: 404, dispatcher: 404, admin: 404, anonymous: 404),
            "GET /track/{token}/proof-photo": MatrixRow(
                { Probe(path: "/track/\(forgedLink($0))/proof-photo") },
                rider: 404, customer: 404, vendor: 404, dispatcher: 404, admin: 404, anonymous: 404),
        ]
    }

    /// B's order id with the signature of A's link.
    static func forgedLink(_ world: AccessWorld) -> String {
        let hex = world.b.orderId.replacingOccurrences(of: "-", with: "")
        let signature = world.a.trackingLink.split(separator: ".").last.map(String.init) ?? ""
        return "trk_\(hex).\(signature)"
    }
}
