import Foundation
import LogisticsCore
import LogisticsStore
import Synchronization

/// What each rider rides, for timing them (`RiderTravelTime`) where their time is asked often: the customer's ETA
/// (per fix and per tracking read) and the store's view of the rider coming. Read from the rider's person record once
/// and trusted for `memory`, so a location fix never waits for the database once the rider is known. A change made
/// through this instance counts at once (`forget`), one made through another instance within `memory`.
final class RiderVehicles: Sendable {
    private struct Entry {
        var vehicle: Vehicle?
        var readAt: Date
    }

    private let people: any PeopleRepository
    private let clock: any WallClock
    private let entries = Mutex<[UUID: Entry]>([:])
    let memory: TimeInterval

    init(people: any PeopleRepository, clock: any WallClock, memory: TimeInterval = 300) {
        self.people = people
        self.clock = clock
        self.memory = memory
    }

    /// The rider's vehicle; nil when they have none on record (or it could not be read: the router's time then
    /// stands, and the next ask reads again).
    func vehicle(of riderId: UUID) async -> Vehicle? {
        let now = clock.now()
        if let known = entries.withLock({ $0[riderId] }), now.timeIntervalSince(known.readAt) < memory {
            return known.vehicle
        }
        let vehicle: Vehicle?
        do {
            // A rider without a person record (first met through a token) is remembered as having no vehicle too.
            vehicle = try await people.person(id: riderId)?.vehicle
        } catch {
            return nil
        }
        entries.withLock { entries in
            if entries.count > 100_000 { entries.removeAll(keepingCapacity: true) }
            entries[riderId] = Entry(vehicle: vehicle, readAt: now)
        }
        return vehicle
    }

    /// The rider's record changed here: the next ask reads it again.
    func forget(_ riderId: UUID) {
        entries.withLock { $0[riderId] = nil }
    }
}
