import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsServer
import NIOHTTP1
import RoadRouting

/// A simulated rider (Marc Dubois) delivering demo orders to Priya Shah one after another, through the real API,
/// driving the router's route at city speed and sending a fix every 2 s — so a demo user always has an order
/// in transit to follow live.
struct DemoRide {
    let services: LogisticsServices
    let base: String
    let http: HTTPClient
    /// Told the tracking page's address once the order is on its way.
    let onTheWay: @Sendable (_ orderId: String, _ trackingPage: String?) -> Void

    static let fixInterval: Duration = .seconds(2)
    static let speedMps = 8.0

    private var rider: Actor { DemoFleet.riders[2] }
    private var customer: Actor { DemoFleet.customers[0].0 }

    func run() async {
        while !Task.isCancelled {
            do {
                try await deliverOne()
                try await Task.sleep(for: .seconds(10))
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                Console.line("demo rider: \(error); trying again in 10 s")
                try? await Task.sleep(for: .seconds(10))
            }
        }
    }

    private func deliverOne() async throws {
        guard let tokens = services.tokens else { return }
        let riderToken = try await tokens.token(subject: rider.id, role: .rider, name: rider.name, ttl: 3600)
        let dispatcherToken = try await tokens.token(
            subject: DemoFleet.dispatcher.id, role: .dispatcher, name: DemoFleet.dispatcher.name, ttl: 3600)
        let customerToken = try await tokens.token(
            subject: customer.id, role: .customer, name: customer.name, ttl: 3600)
        // A delivery left half-way by an earlier run is cancelled, so the rider is free again.
        if let left = try? await call(.GET, "/api/v1/rider/tasks/active", token: riderToken),
            let orderId = left["orderId"] as? String
        {
            try await call(
                .POST, "/api/v1/orders/\(orderId)/cancel", token: dispatcherToken,
                json: ["reason": "the demo restarted"])
            _ = try? await call(.PUT, "/api/v1/rider/availability", token: riderToken, json: ["status": "ONLINE"])
        }
        let contact = DemoFleet.customers[0]
        let store = DemoFleet.store.location
        let order = try await call(
            .POST, "/api/v1/orders", token: dispatcherToken, expect: 201,
            json: DeliveryLoad.order(
                ref: "DEMO-LIVE", from: DemoFleet.store,
                to: CustomerContact(
                    id: customer.id, name: customer.name ?? "", phone: contact.1, address: contact.2,
                    location: contact.3)))
        let orderId = order["orderId"] as! String
        try await call(.POST, "/api/v1/orders/\(orderId)/ready", token: dispatcherToken)
        let offers = try await call(
            .POST, "/api/v1/orders/\(orderId)/offers", token: dispatcherToken, expect: 201,
            json: ["riderIds": [rider.id.lowercased]])
        let offerId = ((offers["offers"] as! [[String: Any]])[0])["offerId"] as! String
        let task = try await call(.POST, "/api/v1/rider/offers/\(offerId)/accept", token: riderToken)
        let taskId = task["taskId"] as! String
        try await tap(taskId, "ARRIVED_AT_STORE", at: store, token: riderToken)
        try await tap(taskId, "PICKED_UP", at: store, token: riderToken)
        let link = try? await call(.POST, "/api/v1/orders/\(orderId)/tracking-links", token: customerToken, expect: 201)
        onTheWay(orderId, link?["url"] as? String)
        for point in try await path(from: store, to: contact.3) {
            let fix: [String: Any] = [
                "lat": point.lat, "lon": point.lon, "accuracyM": 6, "speedMps": Self.speedMps,
                "recordedAt": RFC3339.string(from: Date()),
            ]
            try await call(.POST, "/api/v1/rider/locations", token: riderToken, expect: 202, json: ["fixes": [fix]])
            try await Task.sleep(for: Self.fixInterval)
        }
        try await tap(taskId, "ARRIVED_AT_DESTINATION", at: contact.3, token: riderToken)
        try await Task.sleep(for: .seconds(5))
        let view = try await call(.GET, "/api/v1/customer/orders/\(orderId)", token: customerToken)
        try await call(
            .POST, "/api/v1/rider/tasks/\(taskId)/pod", token: riderToken,
            json: [
                "type": "OTP", "value": view["deliveryOtp"] as? String ?? "",
                "capturedAt": RFC3339.string(from: Date()),
                "location": ["lat": contact.3.lat, "lon": contact.3.lon, "accuracyM": 5],
            ])
        try await tap(taskId, "DELIVERED", at: contact.3, token: riderToken)
        Console.line("demo rider: order \(orderId) delivered; the next one starts in 10 s")
    }

    /// Points every `speed × interval` metres along the road route (a straight line without a map).
    private func path(from start: GeoPoint, to end: GeoPoint) async throws -> [GeoPoint] {
        let shape: [GeoPoint]
        if let route = try? await services.navigator.route(
            RouteRequest(from: start, to: end), profile: nil, now: Date()),
            let points = Polyline.decode(route.geometry), points.count >= 2
        {
            shape = points
        } else {
            shape = [start, end]
        }
        let step = Self.speedMps * Double(Self.fixInterval.components.seconds)
        return shape.sampled(every: step)
    }

    private func tap(_ taskId: String, _ status: String, at point: GeoPoint, token: String) async throws {
        try await call(
            .PATCH, "/api/v1/rider/tasks/\(taskId)/status", token: token, json: DeliveryLoad.tap(status, at: point))
    }

    /// The load generator's JSON client, without timing: a failure names the request and the answer.
    @discardableResult
    private func call(
        _ method: HTTPMethod, _ path: String, token: String, expect: Int = 200, json: [String: Any]? = nil
    ) async throws -> [String: Any] {
        try await BenchClient(http: http, base: base, recorder: nil)
            .call("\(method) \(path)", method, path, token: token, json: json, expect: expect)
    }
}
