import Foundation
import LogisticsCore

/// Customers' tracking links: stored so they can be revoked, and re-checked while their sockets are open.
public protocol TrackingLinkRepository: Sendable {
    func createTrackingLink(id: UUID, orderId: UUID, by actor: Actor, now: Date) async throws
    func trackingLink(id: UUID) async throws -> StoredTrackingLink?
    func revokeTrackingLink(id: UUID, orderId: UUID, now: Date) async throws -> Bool
    func revokedTrackingLinks(among ids: Set<UUID>) async throws -> Set<UUID>
}
