import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsServer
import RiderKit
import RoadRouting

/// A simulated rider (Marc Dubois) delivering demo orders to Priya Shah one after another, through the real API,
/// driving the router's route at city speed and sending a fix every 2 s — so a demo user always has an order
/// in transit to follow live.
struct DemoRide {
    let services: ServerComponents
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
        let (rider, customer) = (self.rider, self.customer)
        let transport = HTTPRiderTransport(http: http)
        let riderAPI = RiderAPI(
            baseURL: base, token: { try await tokens.token(subject: rider.id, role: .rider, name: rider.name) },
            transport: transport)
        let office = OfficeAPI(
            baseURL: base,
            token: {
                try await tokens.token(
                    subject: DemoFleet.dispatcher.id, role: .dispatcher, name: DemoFleet.dispatcher.name)
            }, transport: transport)
        let customerAPI = CustomerAPI(
            baseURL: base,
            token: { try await tokens.token(subject: customer.id, role: .customer, name: customer.name) },
            transport: transport)
        // A delivery left half-way by an earlier run is cancelled, so the rider is free again.
        if let left = try? await riderAPI.activeTask() {
            try await office.cancel(orderId: left.orderId, reason: "the demo restarted")
            _ = try? await riderAPI.setAvailability(online: true)
        }
        let contact = DemoFleet.customers[0]
        let store = DemoFleet.store.location
        let orderId = try await office.placeOrder(
            ref: "DEMO-LIVE", from: DemoFleet.store, storeId: DemoFleet.vendor.id,
            to: CustomerContact(
                id: customer.id, name: customer.name ?? "", phone: contact.1, address: contact.2,
                location: contact.3))
        try await office.markReady(orderId: orderId)
        let offerIds = try await office.offer(orderId: orderId, to: [rider.id])
        let taskId = try await riderAPI.accept(offerId: offerIds[0]).taskId
        try await tap(taskId, .arrivedAtStore, at: store, api: riderAPI)
        try await tap(taskId, .pickedUp, at: store, api: riderAPI)
        onTheWay(orderId, try? await customerAPI.trackingLink(orderId: orderId))
        for point in try await path(from: store, to: contact.3) {
            try await riderAPI.sendLocations([
                LocationFix(lat: point.lat, lon: point.lon, accuracyM: 6, speedMps: Self.speedMps, recordedAt: Date())
            ])
            try await Task.sleep(for: Self.fixInterval)
        }
        try await tap(taskId, .arrivedAtDestination, at: contact.3, api: riderAPI)
        try await Task.sleep(for: .seconds(5))
        let code = try await customerAPI.deliveryCode(orderId: orderId) ?? ""
        try await riderAPI.submitDeliveryCode(
            taskId: taskId, code: code, capturedAt: Date(),
            location: GeoPoint(lat: contact.3.lat, lon: contact.3.lon, accuracyM: 5),
            actionId: UUID())
        try await tap(taskId, .delivered, at: contact.3, api: riderAPI)
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

    private func tap(_ taskId: String, _ status: TaskStatus, at point: GeoPoint, api: RiderAPI) async throws {
        _ = try await api.updateStatus(
            taskId: taskId,
            StatusUpdate(
                status: status, location: GeoPoint(lat: point.lat, lon: point.lon, accuracyM: 5), occurredAt: Date(),
                eventId: UUID()))
    }
}
