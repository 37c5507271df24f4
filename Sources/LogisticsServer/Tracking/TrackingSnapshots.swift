import Foundation
import LogisticsCore
import LogisticsStore
import RoadRouting

/// An order's live channel and its snapshot (where the rider is, whether that is stale, the ETA): for the polling
/// route, the customer's socket, the tracking page, and the customer's view of the order.
struct TrackingSnapshots: Sendable {
    let hub: TrackingHub
    let ingest: LocationIngest
    let locations: any LocationRepository
    let navigator: Navigator
    /// The ETA is timed by the rider's vehicle (`RiderTravelTime`).
    let vehicles: RiderVehicles
    let clock: any WallClock

    /// The order's live channel: 409 before pickup, 410 once it has ended (**R** BR-001).
    @discardableResult
    func openChannel(of order: Order) async throws -> TrackingChannel {
        try TrackingRoutes.refuseIfEnded(order)
        guard TrackingChannel.isTrackable(order.status), let riderId = order.assignedRiderId else {
            throw LogisticsError(
                .trackingNotAvailable, "Live tracking starts when the rider has picked up the order",
                extras: ["currentStatus": .string(order.status.rawValue)])
        }
        // Memory first; the database knows the riders who report to another instance.
        var stored = ingest.newestShowable(riderId: riderId)
        if stored == nil { stored = try await locations.lastShowableFix(riderId: riderId) }
        return hub.channel(orderId: order.id, riderId: riderId, status: order.status, lastFix: stored, now: clock.now())
    }

    /// The snapshot of a trackable order, with the router's ETA and the road left to the door when a map is loaded.
    /// The route starts where the router meets the road nearest the rider, so it follows the street they are on.
    func snapshot(of order: Order) async throws -> TrackingRoutes.Snapshot {
        let channel = try await openChannel(of: order)
        let now = clock.now()
        let rider = channel.lastShown
        var eta: Route?
        var etaSeconds: Double?
        if let rider {
            // Without a map or a route the snapshot still shows where the rider is.
            eta = try? await navigator.route(
                RouteRequest(from: rider.point, to: order.customer.location), profile: nil, now: now)
            if let eta {
                // openChannel has made sure the order has its rider.
                let vehicle: Vehicle? =
                    if let riderId = order.assignedRiderId { await vehicles.vehicle(of: riderId) } else { nil }
                etaSeconds = RiderTravelTime.seconds(
                    roadSeconds: eta.durationS, distanceM: eta.distanceM, vehicle: vehicle)
            }
        }
        return TrackingRoutes.Snapshot(
            seq: channel.seq, stream: channel.stream, status: channel.status, vendor: order.vendor,
            destination: .init(address: order.customer.address, location: order.customer.location), rider: rider,
            stale: rider.map { now.timeIntervalSince($0.recordedAt) >= channel.staleAfterSeconds } ?? true,
            etaSeconds: etaSeconds.map { Int($0.rounded()) }, remainingDistanceM: eta?.distanceM,
            remainingRoute: eta?.geometry)
    }
}
