import Foundation
import LogisticsCore
import Synchronization

/// Riders and customers this instance has already provisioned, so most requests skip the lookup.
///
/// A rider's "not suspended" is trusted for half a minute: a suspension made through this instance takes effect at
/// once (it forgets the rider), one made through another instance within `riderTTL`. The trust must outlast the
/// gap between a phone's location uploads (5–10 s), or every upload pays a database read (at 5 s it did, and that
/// read queued behind the location writes).
final class KnownCallers: Sendable {
    private let riders = Mutex<[UUID: Date]>([:])
    private let customers = Mutex<Set<UUID>>([])
    let riderTTL: TimeInterval = 30

    func riderIsKnownActive(_ id: UUID, now: Date) -> Bool {
        riders.withLock { ($0[id] ?? .distantPast) > now }
    }

    func rememberActiveRider(_ id: UUID, now: Date) {
        riders.withLock { cache in
            if cache.count > 100_000 { cache.removeAll(keepingCapacity: true) }
            cache[id] = now.addingTimeInterval(riderTTL)
        }
    }

    func forgetRider(_ id: UUID) {
        _ = riders.withLock { $0.removeValue(forKey: id) }
    }

    func customerIsKnown(_ id: UUID) -> Bool { customers.withLock { $0.contains(id) } }

    func rememberCustomer(_ id: UUID) {
        customers.withLock { known in
            if known.count > 100_000 { known.removeAll(keepingCapacity: true) }
            known.insert(id)
        }
    }
}
