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
        routes.post("/orders/{orderId}/tracking-links", roles: [.dispatcher, .admin, .vendor, .customer], createLink)
        routes.delete("/orders/{orderId}/tracking-links/{linkId}", revokeLink)
    }

    struct TrackingLink: Encodable {
        var linkId: String
        var orderId: String
        var token: String
        /// The web tracking page for the link.
        var url: String
        var validUntil: String
    }

    /// An order-scoped, read-only token for the tracking stream (a link texted to the recipient), for the order's
    /// dispatcher, vendor or customer.
    @Sendable func createLink(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin, .vendor, .customer)
        let order = try await services.orderLookup.visibleOrder(context, allowed: OrderAccess.canView)
        try Self.refuseIfEnded(order)
        let linkId = UUID()
        try await services.repository.createTrackingLink(
            id: linkId, orderId: order.id, by: try context.caller(), now: services.clock.now())
        let token = services.trackingLinks.token(linkId: linkId)
        let hours = services.configuration.trackingLinkHoursAfterEnd
        let base = services.configuration.linkBaseURL(requestAuthority: request.head.authority)
        return try .json(
            TrackingLink(
                linkId: linkId.lowercased, orderId: order.id.lowercased, token: token, url: "\(base)/track/\(token)",
                validUntil: "\(hours) h after the order is delivered, cancelled or failed, unless revoked"),
            status: .created)
    }

    /// Revokes a link at once: its page and snapshot answer 403, and sockets open on it close with 4403 within a
    /// second. Whoever may create links for the order may revoke them.
    @Sendable func revokeLink(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin, .vendor, .customer)
        let order = try await services.orderLookup.visibleOrder(context, allowed: OrderAccess.canView)
        let linkId = try context.uuidParameter("linkId")
        guard try await services.repository.revokeTrackingLink(id: linkId, orderId: order.id, now: services.clock.now())
        else { throw LogisticsError.notFound("tracking link") }
        services.accessWatch.checkSoon()
        return APIResponse(status: .noContent, body: Data(), contentType: "application/json", location: nil)
    }

    struct Snapshot: Encodable {
        var type = "snapshot"
        var seq: Int
        /// Which run of seq values this is; send it back with `resumeFrom`.
        var stream: String
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
        let order = try await services.orderLookup.customersOwnOrder(context)
        return try .json(try await Self.snapshot(of: order, services: services))
    }

    /// 410 TRACKING_ENDED for an order that is over, or on its way back to the store: its stream and its links are
    /// over.
    static func refuseIfEnded(_ order: Order) throws {
        guard TrackingChannel.endsTracking(order.status) else { return }
        throw LogisticsError(
            .trackingEnded, "The order is \(order.status.rawValue)",
            extras: ["currentStatus": .string(order.status.rawValue)])
    }

    /// The order's live channel: 409 before pickup, 410 once it has ended (**R** BR-001).
    @discardableResult
    static func openChannel(of order: Order, services: LogisticsServices) async throws -> TrackingChannel {
        try Self.refuseIfEnded(order)
        guard TrackingChannel.isTrackable(order.status), let riderId = order.assignedRiderId else {
            throw LogisticsError(
                .trackingNotAvailable, "Live tracking starts when the rider has picked up the order",
                extras: ["currentStatus": .string(order.status.rawValue)])
        }
        // Memory first; the database knows the riders who report to another instance.
        var stored = services.ingest.newestShowable(riderId: riderId)
        if stored == nil { stored = try await services.locations.lastShowableFix(riderId: riderId) }
        return services.tracking.channel(
            orderId: order.id, riderId: riderId, status: order.status, lastFix: stored, now: services.clock.now())
    }

    /// The snapshot of a trackable order, with the router's ETA when a map is loaded.
    static func snapshot(of order: Order, services: LogisticsServices) async throws -> Snapshot {
        let channel = try await openChannel(of: order, services: services)
        let now = services.clock.now()
        let rider = channel.lastShown
        var eta: Route?
        if let rider {
            // Without a map or a route the snapshot still shows where the rider is.
            eta = try? await services.navigator.route(
                RouteRequest(from: rider.point, to: order.customer.location), profile: nil, now: now)
        }
        return Snapshot(
            seq: channel.seq, stream: channel.stream, status: channel.status, vendor: order.vendor,
            destination: .init(address: order.customer.address, location: order.customer.location), rider: rider,
            stale: rider.map { now.timeIntervalSince($0.recordedAt) >= channel.staleAfterSeconds } ?? true,
            etaSeconds: eta.map { Int($0.durationS.rounded()) }, remainingDistanceM: eta?.distanceM)
    }
}

/// The live part of an order's view (where the rider is, whether that is stale, the ETA), for routes outside
/// tracking that show it.
struct TrackingSnapshots: Sendable {
    let services: LogisticsServices

    func snapshot(of order: Order) async throws -> TrackingRoutes.Snapshot {
        try await TrackingRoutes.snapshot(of: order, services: services)
    }
}
