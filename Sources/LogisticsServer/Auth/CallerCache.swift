import Foundation
import LogisticsCore
import Synchronization

/// Riders and customers this instance has already provisioned, so most requests skip the lookup.
///
/// A rider's "not suspended" is trusted for `riderTTL`; after that, for up to `riderGrace`, the request is let
/// through while one background read checks the rider again, so a phone's uploads never wait for the database
/// once it is known. A suspension made through this instance takes effect at once (it forgets the rider), one made
/// through another instance within `riderTTL` plus one upload.
final class CallerCache: Sendable {
    enum RiderStanding: Equatable {
        /// Checked within `riderTTL`.
        case active
        /// Checked longer ago: admit, and check again in the background (`claimRecheck` says who does).
        case dueForRecheck
        /// Never checked, or too long ago: check before admitting.
        case unknown
    }

    private struct Rider {
        var checkedAt: Date
        var rechecking = false
    }

    private let riders = Mutex<[UUID: Rider]>([:])
    /// When each customer was provisioned or last seen; forgotten after `customerMemory`.
    private let customers = Mutex<[UUID: Date]>([:])
    let customerMemory: TimeInterval = 3600
    let riderTTL: TimeInterval = 30
    let riderGrace: TimeInterval = 300

    func standing(ofRider id: UUID, now: Date) -> RiderStanding {
        riders.withLock { cache in
            guard let rider = cache[id] else { return .unknown }
            let age = now.timeIntervalSince(rider.checkedAt)
            return age < riderTTL ? .active : age < riderGrace ? .dueForRecheck : .unknown
        }
    }

    /// True for the one caller that should re-check the rider now; the others carry on.
    func claimRecheck(_ id: UUID) -> Bool {
        riders.withLock { cache in
            guard var rider = cache[id], !rider.rechecking else { return false }
            rider.rechecking = true
            cache[id] = rider
            return true
        }
    }

    /// The re-check could not read the rider: leave it due, so the next request tries again.
    func recheckFailed(_ id: UUID) {
        riders.withLock { $0[id]?.rechecking = false }
    }

    func rememberActiveRider(_ id: UUID, now: Date) {
        riders.withLock { cache in
            if cache.count > 100_000 { cache.removeAll(keepingCapacity: true) }
            cache[id] = Rider(checkedAt: now)
        }
    }

    func forgetRider(_ id: UUID) {
        _ = riders.withLock { $0.removeValue(forKey: id) }
    }

    /// Sign-in sessions seen live, and when. A session ended on another instance stops being accepted here once
    /// its check is older than `sessionTTL`: within 30 s everywhere, as the API promises.
    private let sessions = Mutex<[UUID: Date]>([:])
    let sessionTTL: TimeInterval = 25

    func sessionIsFresh(_ id: UUID, now: Date) -> Bool {
        sessions.withLock { $0[id].map { now.timeIntervalSince($0) < sessionTTL } ?? false }
    }

    func rememberLiveSession(_ id: UUID, now: Date) {
        sessions.withLock { known in
            if known.count > 100_000 { known.removeAll(keepingCapacity: true) }
            known[id] = now
        }
    }

    func forgetSession(_ id: UUID) {
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    func customerIsKnown(_ id: UUID) -> Bool { customers.withLock { $0[id] != nil } }

    func rememberCustomer(_ id: UUID, now: Date) {
        customers.withLock { known in
            if known.count > 100_000 { known.removeAll(keepingCapacity: true) }
            known[id] = now
        }
    }

    /// Forgets riders past `riderGrace` (they count as unknown anyway) and customers not provisioned within
    /// `customerMemory`: both tables kept everyone ever seen until they were wiped at 100,000.
    @discardableResult
    func forgetOld(now: Date) -> Int {
        let riders = riders.withLock { cache in
            let before = cache.count
            cache = cache.filter { now.timeIntervalSince($0.value.checkedAt) < riderGrace }
            return before - cache.count
        }
        let customers = customers.withLock { known in
            let before = known.count
            known = known.filter { now.timeIntervalSince($0.value) < customerMemory }
            return before - known.count
        }
        let sessions = sessions.withLock { known in
            let before = known.count
            known = known.filter { now.timeIntervalSince($0.value) < sessionTTL }
            return before - known.count
        }
        return riders + customers + sessions
    }

    var count: Int { riders.withLock { $0.count } + customers.withLock { $0.count } }
}
