import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsServer
import NIOHTTP1
import Synchronization

/// Simulated riders doing whole deliveries: online → offer → accept → four status taps → OTP proof →
/// delivered, with a dispatcher creating and offering each order and the customer reading the code.
struct DeliveryLoad {
    let client: BenchClient
    let tokens: AccessTokenIssuer
    let riders: Int
    let deliveries: Int
    /// The riders' ids, when the same riders come back run after run (the soak); new ones each run otherwise.
    var riderIds: [UUID]? = nil

    struct Result {
        var completed: Int
        var elapsed: Duration
    }

    func run(progress: @escaping @Sendable (Int) -> Void) async throws -> Result {
        let dispatcher = try await tokens.token(subject: UUID(), role: .dispatcher, ttl: 86_400)
        let remaining = Countdown(deliveries)
        let start = ContinuousClock.now
        let completed = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<riders {
                group.addTask {
                    try await riderLoop(index: index, dispatcher: dispatcher, remaining: remaining, progress: progress)
                }
            }
            return try await group.reduce(0, +)
        }
        return Result(completed: completed, elapsed: ContinuousClock.now - start)
    }

    private func riderLoop(index: Int, dispatcher: String, remaining: Countdown, progress: @Sendable (Int) -> Void)
        async throws -> Int
    {
        let riderId = riderIds?[index] ?? UUID()
        let rider = try await tokens.token(subject: riderId, role: .rider, name: "Bench Rider \(index)", ttl: 86_400)
        try await client.call(
            "PUT availability", .PUT, "/api/v1/rider/availability", token: rider, json: ["status": "ONLINE"])
        var done = 0
        while remaining.take() {
            let customerId = UUID()
            let customer = try await tokens.token(subject: customerId, role: .customer, ttl: 86_400)
            let order = try await client.call(
                "POST orders", .POST, "/api/v1/orders", token: dispatcher, json: Self.order(customerId), expect: 201)
            let orderId = order["orderId"] as! String
            try await client.call("POST ready", .POST, "/api/v1/orders/\(orderId)/ready", token: dispatcher)
            let offers = try await client.call(
                "POST offers", .POST, "/api/v1/orders/\(orderId)/offers", token: dispatcher,
                json: ["riderIds": [riderId.lowercased]], expect: 201)
            let offerId = ((offers["offers"] as! [[String: Any]])[0])["offerId"] as! String
            try await client.call("GET rider/offers", .GET, "/api/v1/rider/offers", token: rider)
            let task = try await client.call(
                "POST accept", .POST, "/api/v1/rider/offers/\(offerId)/accept", token: rider)
            let taskId = task["taskId"] as! String
            for status in ["ARRIVED_AT_STORE", "PICKED_UP", "ARRIVED_AT_DESTINATION"] {
                try await client.call(
                    "PATCH status", .PATCH, "/api/v1/rider/tasks/\(taskId)/status", token: rider, json: Self.tap(status)
                )
            }
            let view = try await client.call(
                "GET customer order", .GET, "/api/v1/customer/orders/\(orderId)", token: customer)
            try await client.call(
                "POST pod (OTP)", .POST, "/api/v1/rider/tasks/\(taskId)/pod", token: rider,
                json: [
                    "type": "OTP", "value": view["deliveryOtp"] as! String, "capturedAt": RFC3339.string(from: Date()),
                    "location": ["lat": 43.7347, "lon": 7.4240, "accuracyM": 5],
                ])
            try await client.call(
                "PATCH status", .PATCH, "/api/v1/rider/tasks/\(taskId)/status", token: rider,
                json: Self.tap("DELIVERED"))
            done += 1
            progress(1)
        }
        return done
    }

    static func order(_ customerId: UUID) -> [String: Any] {
        order(
            ref: "BENCH",
            from: VendorStop(
                name: "Café de Paris", address: "Place du Casino", location: GeoPoint(lat: 43.7396, lon: 7.4276)),
            to: CustomerContact(
                id: customerId, name: "Bench Customer", phone: "+377 93 15 00 01", address: "Quai Antoine 1er",
                location: GeoPoint(lat: 43.7347, lon: 7.4240)))
    }

    /// The body of `POST /api/v1/orders`: an order proved with the customer's code, from a store to a customer.
    static func order(ref: String, from vendor: VendorStop, to customer: CustomerContact) -> [String: Any] {
        [
            "externalRef": ref, "podType": "OTP",
            "vendor": [
                "name": vendor.name, "address": vendor.address,
                "location": ["lat": vendor.location.lat, "lon": vendor.location.lon],
            ],
            "customer": [
                "id": customer.id.lowercased, "name": customer.name, "phone": customer.phone,
                "address": customer.address, "location": ["lat": customer.location.lat, "lon": customer.location.lon],
            ],
        ]
    }

    /// A status change where it happens (by default at the customer's door).
    static func tap(
        _ status: String, at point: GeoPoint = GeoPoint(lat: 43.7347, lon: 7.4240), now: Date = Date()
    ) -> [String: Any] {
        [
            "status": status, "location": ["lat": point.lat, "lon": point.lon, "accuracyM": 5],
            "occurredAt": RFC3339.string(from: now), "eventId": UUID().lowercased,
        ]
    }
}

/// Counts finished deliveries for the progress line.
final class DeliveryCounter: Sendable {
    private let count = Mutex(0)
    func add(_ delta: Int) { count.withLock { $0 += delta } }
    var value: Int { count.withLock { $0 } }
}

/// Hands out a fixed number of deliveries to the riders.
final class Countdown: Sendable {
    private let left: Mutex<Int>
    init(_ count: Int) { left = .init(count) }
    func take() -> Bool {
        left.withLock {
            guard $0 > 0 else { return false }
            $0 -= 1
            return true
        }
    }
}
