import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// The customer's live-tracking snapshot (`GET /api/v1/customer/orders/{orderId}/tracking`), for polling clients;
/// the same document opens the WebSocket stream.
struct TrackingRoutes {
    let lookup: OrderLookup
    let linkStore: any TrackingLinkRepository
    let links: TrackingLinks
    let snapshots: TrackingSnapshots
    let revocationWatch: RevocationWatch
    let publicAddress: PublicAddress
    let linkHoursAfterEnd: Int
    let clock: any WallClock

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
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        try Self.refuseIfEnded(order)
        let linkId = UUID()
        try await linkStore.createTrackingLink(
            id: linkId, orderId: order.id, by: try context.caller(), now: clock.now())
        let token = links.token(linkId: linkId)
        let hours = linkHoursAfterEnd
        let base = publicAddress.base(requestAuthority: request.head.authority)
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
        let order = try await lookup.visibleOrder(context, allowed: OrderAccess.canView)
        let linkId = try context.uuidParameter("linkId")
        guard try await linkStore.revokeTrackingLink(id: linkId, orderId: order.id, now: clock.now()) else {
            throw LogisticsError.notFound("tracking link")
        }
        revocationWatch.checkSoon()
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
        /// The road from the rider to the door (polyline6), for the customer's map to draw what is left.
        var remainingRoute: String?

        struct Destination: Encodable {
            var address: String
            var location: GeoPoint
        }
    }

    @Sendable func snapshot(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let order = try await lookup.customersOwnOrder(context)
        return try .json(try await snapshots.snapshot(of: order))
    }

    /// 410 TRACKING_ENDED for an order that is over, or on its way back to the store: its stream and its links are
    /// over.
    static func refuseIfEnded(_ order: Order) throws {
        guard TrackingChannel.endsTracking(order.status) else { return }
        throw LogisticsError(
            .trackingEnded, "The order is \(order.status.rawValue)",
            extras: ["currentStatus": .string(order.status.rawValue)])
    }
}
