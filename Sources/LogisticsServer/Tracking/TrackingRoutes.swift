import Foundation
import Hummingbird
import LogisticsCore
import RoadRouting

/// The customer's live-tracking snapshot (`GET /api/v1/customer/orders/{orderId}/tracking`), for polling clients;
/// the same document opens the WebSocket stream.
struct TrackingRoutes {
    let services: LogisticsServices

    func register(in routes: inout RouteTable) {
        routes.get("/customer/orders/{orderId}/tracking", snapshot)
    }

    struct Snapshot: Encodable {
        var type = "snapshot"
        var seq: Int
        var status: OrderStatus
        var vendor: VendorStop
        var destination: Destination
        var rider: TrackedPosition?
        var stale: Bool
        var etaSeconds: Int?
        var remainingDistanceM: Double?

        struct Destination: Encodable {
            var address: String
            var location: GeoPoint
        }
    }

    @Sendable func snapshot(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let order = try await services.customersOwnOrder(context)
        return try .json(try await Self.snapshot(of: order, services: services))
    }

    /// The snapshot of a trackable order: 409 before pickup, 410 once it has ended (**R** BR-001).
    static func snapshot(of order: Order, services: LogisticsServices) async throws -> Snapshot {
        if order.status.isFinal {
            throw LogisticsError(
                .trackingEnded, "The order is \(order.status.rawValue)",
                extras: ["currentStatus": .string(order.status.rawValue)])
        }
        guard TrackingChannel.isTrackable(order.status), let riderId = order.assignedRiderId else {
            throw LogisticsError(
                .trackingNotAvailable, "Live tracking starts when the rider has picked up the order",
                extras: ["currentStatus": .string(order.status.rawValue)])
        }
        let now = services.clock.now()
        let stored = try await services.locations.lastShowableFix(riderId: riderId).map {
            TrackedPosition(lat: $0.lat, lon: $0.lon, accuracyM: $0.accuracyM, recordedAt: $0.recordedAt)
        }
        let channel = services.tracking.channel(orderId: order.id, status: order.status, lastFix: stored, now: now)
        let rider = channel.lastShown ?? stored
        var eta: Route?
        if let rider {
            // Without a map or a route the snapshot still shows where the rider is.
            eta = try? await services.navigator.route(
                RouteRequest(from: rider.point, to: order.customer.location), profile: nil, now: now)
        }
        return Snapshot(
            seq: channel.seq, status: channel.status, vendor: order.vendor,
            destination: .init(address: order.customer.address, location: order.customer.location), rider: rider,
            stale: rider.map { now.timeIntervalSince($0.recordedAt) >= TrackingChannel.staleAfterSeconds } ?? true,
            etaSeconds: eta.map { Int($0.durationS.rounded()) }, remainingDistanceM: eta?.distanceM)
    }
}
