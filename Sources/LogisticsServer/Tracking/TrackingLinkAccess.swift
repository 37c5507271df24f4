import Foundation
import LogisticsCore
import LogisticsStore

/// What a tracking link opens now. A link works while its order runs, shows the order's end for a fixed time
/// after it (`trackingLinkHoursAfterEnd`), and then never again; a revoked link stops at once, and sockets open
/// on it are closed by the `RevocationWatch`.
struct TrackingLinkAccess: Sendable {
    let links: TrackingLinks
    let orders: any OrderRepository
    let linkStore: any TrackingLinkRepository
    let hoursAfterEnd: Int
    let clock: any WallClock

    enum Resolution {
        case open(Order, linkId: UUID?)
        /// Forged, damaged, or naming nothing this server has.
        case unknown
        case revoked
        /// The order ended longer ago than links are kept.
        case expired(Order)
    }

    func resolve(_ token: String) async throws -> Resolution {
        switch links.reference(fromToken: token) {
        case nil:
            return .unknown
        case .legacyOrder(let orderId):
            guard let order = try await orders.order(id: orderId) else { return .unknown }
            return within(order, linkId: nil)
        case .link(let linkId):
            guard let link = try await linkStore.trackingLink(id: linkId),
                let order = try await orders.order(id: link.orderId)
            else { return .unknown }
            if link.revokedAt != nil { return .revoked }
            return within(order, linkId: linkId)
        }
    }

    /// The order a link opens, or the refusal for an API caller (404 unknown, 403 revoked, 410 expired).
    func order(_ token: String) async throws -> (Order, linkId: UUID?) {
        switch try await resolve(token) {
        case .open(let order, let linkId): return (order, linkId)
        case .unknown: throw LogisticsError.notFound("tracking link")
        case .revoked: throw LogisticsError(.forbidden, "This tracking link was revoked")
        case .expired:
            // Nothing about the order: a link forwarded or left in a browser's history outlives the delivery.
            throw LogisticsError(.trackingEnded, "The order ended and its tracking links have expired")
        }
    }

    private func within(_ order: Order, linkId: UUID?) -> Resolution {
        let keptFor = TimeInterval(hoursAfterEnd) * 3600
        if order.status.isFinal, clock.now().timeIntervalSince(order.updatedAt) > keptFor {
            return .expired(order)
        }
        return .open(order, linkId: linkId)
    }
}
