import Foundation
import LogisticsCore

/// A rider as the dispatcher's map shows them: the account and the newest position, if any.
public struct FleetRider: Sendable {
    public var rider: Rider
    public var lastSeen: (position: GeoPoint, at: Date)?
}

/// Rider and customer accounts, as tokens first introduce them, and the fleet for the dispatcher's map.
public protocol RiderRepository: Sendable {
    func provisionRider(_ actor: Actor, now: Date) async throws -> Rider
    func provisionCustomer(_ actor: Actor, now: Date) async throws
    func rider(id: UUID) async throws -> Rider?
    func setRiderSuspended(id: UUID, suspended: Bool, now: Date) async throws -> Rider
    func setAvailability(riderId: UUID, to availability: RiderAvailability, now: Date) async throws -> Rider
    /// Riders for the dispatcher's map, those with the newest fixes first (optionally of one availability).
    func fleet(availability: RiderAvailability?, limit: Int) async throws -> [FleetRider]
    /// Which of these riders are suspended now: what open sockets are re-checked against.
    func suspendedRiders(among ids: Set<UUID>) async throws -> Set<UUID>
    /// Each rider's unfinished orders and deliveries since `dayStart`, by rider: riders with neither are absent.
    func fleetWorkloads(deliveredSince dayStart: Date) async throws -> [UUID: RiderWorkload]
    /// Where the rider went: the stored fixes recorded since `since`, oldest first, the newest `limit` of them.
    func riderTrail(riderId: UUID, since: Date, limit: Int) async throws -> [LocationFix]
}
