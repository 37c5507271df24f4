import Foundation
import LogisticsCore

/// A free rider as automatic dispatch sees them: where they were last, since when they have been free, and what they
/// ride (their road time is timed by it).
public struct FreeRider: Sendable, Equatable {
    public var riderId: UUID
    public var position: GeoPoint?
    public var freeSince: Date
    /// Nil for a rider without a person record (first met through a token) or without a vehicle on it.
    public var vehicle: Vehicle?
}

/// A rider on a trip who might take one more order on the way (batching), with the trip as it stands.
public struct TripRider: Sendable {
    public var riderId: UUID
    public var position: GeoPoint?
    public var trip: RiderTrip
    public var vehicle: Vehicle?
}

/// What automatic dispatch reads and writes. Every write re-checks its conditions under the order's lock, so any
/// number of dispatchers (threads or instances) can work on one order and at most one offer is open for it.
public protocol DispatchRepository: Sendable {
    /// Orders without a rider, an open offer or a hand-over to dispatchers: READY_FOR_PICKUP ones, and PREPARING
    /// ones expected ready within `lead` seconds; with `vendors`, only theirs; with `orderId`, only that one. Ready
    /// ones first, then oldest first.
    func ordersAwaitingDispatch(
        orderId: UUID?, vendors: Set<UUID>?, now: Date, lead: TimeInterval, limit: Int
    ) async throws -> [Order]
    /// Riders who may get an offer for this order now: online, not suspended, without a task or an open offer, and
    /// never offered this order before.
    func freeRiders(for orderId: UUID, now: Date) async throws -> [FreeRider]
    /// Riders on a trip of fewer than `maxOrders` orders who may get an offer for this order now: not suspended,
    /// without an open offer, never offered this order before.
    func tripRiders(for orderId: UUID, maxOrders: Int, now: Date) async throws -> [TripRider]
    /// How many automatic offers this order has had.
    func automaticRounds(orderId: UUID) async throws -> Int
    /// Offers the order to one rider if it still awaits a rider and the rider is still free (or, with `tripStops`,
    /// still on the trip those stops were planned for); nil (nothing written) otherwise. `details` go into the
    /// order's event log with the offer.
    func makeAutomaticOffer(
        orderId: UUID, riderId: UUID, ttl: TimeInterval, tripStops: [TripStop]?, details: [String: String], now: Date
    ) async throws -> Offer?
    /// Hands the order over to dispatchers (an event they see), once; false when it no longer awaits a rider or was
    /// handed over already.
    func escalateDispatch(orderId: UUID, details: [String: String], now: Date) async throws -> Bool
}
