import Foundation
import LogisticsCore

/// Customers' tracking links: stored so they can be revoked, and re-checked while their sockets are open.
public protocol TrackingLinkRepository: Sendable {
    func createTrackingLink(id: UUID, orderId: UUID, by actor: Actor, now: Date) async throws
    func trackingLink(id: UUID) async throws -> StoredTrackingLink?
    /// The order's link for its customer's texts, made on first use.
    func messageLink(orderId: UUID, now: Date) async throws -> UUID
    func revokeTrackingLink(id: UUID, orderId: UUID, now: Date) async throws -> Bool
    func revokedTrackingLinks(among ids: Set<UUID>) async throws -> Set<UUID>
}
