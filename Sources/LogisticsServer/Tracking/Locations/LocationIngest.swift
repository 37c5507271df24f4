import Foundation
import LogisticsCore
import LogisticsStore
import Synchronization

/// Rider fixes from `POST /rider/locations` and the rider's socket: validated as a batch, deduplicated against
/// what the rider sent lately, handed to live tracking, stored (thinned) with a shared group commit, then given to
/// live traffic and to the ETA ledger. The newest positions live in memory, so the hot path reads nothing from the database.
final class LocationIngest: Sendable {
    struct Receipt: Encodable, Sendable {
        var accepted: Int
        /// Duplicates plus fixes too old to use.
        var rejected: Int
        var duplicates: Int
        var rejections: [Rejection]

        struct Rejection: Encodable, Sendable {
            var index: Int
            var reason: String
        }
    }

    private let trails = Mutex<[UUID: RiderTrail]>([:])
    private let writer: LocationWriter
    private let relay: any TrackingRelay
    private let navigator: Navigator
    private let etas: EtaLedger?

    /// Fixes per rider, counted one by one (nil: unlimited).
    private let limiter: RateLimiter?

    init(
        repository: any LocationRepository, relay: any TrackingRelay, navigator: Navigator, etas: EtaLedger? = nil,
        clock: any WallClock, fixesPerRider: RateRule? = nil, commitsAtOnce: Int = 1
    ) {
        writer = LocationWriter(repository: repository, clock: clock, commitsAtOnce: commitsAtOnce)
        self.relay = relay
        self.navigator = navigator
        self.etas = etas
        limiter = fixesPerRider.map { RateLimiter($0, what: "location fixes") }
    }

    /// Forgets the trails of riders whose newest fix is older than `idle` (off shift, or gone): a trail is ~10 KB,
    /// and every rider ever seen kept one. A rider who comes back starts a new trail; the store's unique index
    /// still refuses a fix sent twice, and live tracking reads the last position from the database.
    @discardableResult
    func forgetIdleRiders(now: Date, idle: TimeInterval = 1800) -> Int {
        trails.withLock { trails in
            let before = trails.count
            trails = trails.filter { _, trail in
                guard let newest = trail.newest else { return false }
                return now.timeIntervalSince(newest.recordedAt) < idle
            }
            return before - trails.count
        }
    }

    var trackedRiders: Int { trails.withLock { $0.count } }

    /// A batch taken in: live tracking has it, the history and the positions do not yet.
    struct Taken: Sendable {
        fileprivate var riderId: UUID
        fileprivate var now: Date
        fileprivate var intake: RiderTrail.Intake
        fileprivate var write: RiderFixWrite?
        fileprivate var rejections: [Receipt.Rejection]
    }

    /// Returns once the fixes worth keeping are stored; a batch with any invalid fix is refused whole, unchanged.
    func ingest(_ fixes: [LocationFix], riderId: UUID, now: Date) async throws -> Receipt {
        try await store(take(fixes, riderId: riderId, now: now))
    }

    /// Validates the batch, counts it against the rider's rate, remembers its fixes and shows the fresh ones to
    /// customers at once. A rider's batches must be taken in the order they came; `store` may lag behind, so a
    /// socket shows the next batch while the last one waits for its commit.
    func take(_ fixes: [LocationFix], riderId: UUID, now: Date) throws -> Taken {
        guard (1...LocationFix.maximumBatch).contains(fixes.count) else {
            throw LogisticsError.validation(field: "fixes", "must hold 1 to \(LocationFix.maximumBatch) fixes")
        }
        let errors = fixes.enumerated().flatMap { index, fix in
            fix.validationErrors(field: "fixes[\(index)]", now: now)
        }
        guard errors.isEmpty else { throw LogisticsError.validation(errors) }
        try limiter?.take(riderId.lowercased, cost: Double(fixes.count), now: now)
        var rejections: [Receipt.Rejection] = []
        var usable: [LocationFix] = []
        for (index, fix) in fixes.enumerated() {
            if fix.isTooOld(now: now) {
                rejections.append(.init(index: index, reason: "recordedAt is older than 24 hours"))
            } else {
                usable.append(fix)
            }
        }
        let (intake, newest, newestShowable) = trails.withLock { trails in
            let intake = trails[riderId, default: RiderTrail()].take(usable)
            return (intake, trails[riderId]?.newest, trails[riderId]?.newestShowable)
        }
        // Customers see the position as soon as it is valid; the acknowledgement waits for the group commit. A fix
        // shown but then not stored is sent again by the phone, and the channel ignores a fix it has seen.
        if !intake.fresh.isEmpty {
            relay.publish(intake.fresh.map { .fix(riderId: riderId, fix: $0) })
        }
        let write =
            intake.kept.isEmpty && !intake.movedForward
            ? nil
            : RiderFixWrite(
                riderId: riderId, kept: intake.kept, newest: intake.movedForward ? newest : nil,
                newestShowable: intake.movedForward ? newestShowable : nil)
        return Taken(riderId: riderId, now: now, intake: intake, write: write, rejections: rejections)
    }

    /// Returns once what `take` kept is durable, with the receipt the phone is answered.
    func store(_ taken: Taken) async throws -> Receipt {
        try await withCheckedThrowingContinuation { stored in store(taken) { stored.resume(with: $0) } }
    }

    /// Calls `done` with the receipt once what `take` kept is durable, or with the database's error; on the group
    /// commit's thread, or on the caller's when there was nothing to write.
    func store(_ taken: Taken, then done: @escaping @Sendable (Result<Receipt, any Error>) -> Void) {
        guard let write = taken.write else { return stored(taken, then: done) }
        writer.submit(write) { error in
            guard let error else { return self.stored(taken, then: done) }
            // Not stored, so not acknowledged: the phone's retry must not look like a duplicate.
            self.trails.withLock { $0[taken.riderId]?.forget(taken.intake.fresh) }
            done(.failure(error))
        }
    }

    /// Live traffic and the ETA ledger learn of the stored fixes before the phone is answered; a task only when the
    /// ledger has to wait for the database or a route.
    private func stored(_ taken: Taken, then done: @escaping @Sendable (Result<Receipt, any Error>) -> Void) {
        let (riderId, intake) = (taken.riderId, taken.intake)
        let receipt = Receipt(
            accepted: intake.fresh.count, rejected: taken.rejections.count + intake.duplicates,
            duplicates: intake.duplicates, rejections: taken.rejections)
        guard !intake.fresh.isEmpty else { return done(.success(receipt)) }
        navigator.provider.observe(intake.fresh, riderId: riderId)
        guard let etas, !etas.hasNothingToDo(riderId: riderId, fixes: intake.fresh, now: taken.now) else {
            return done(.success(receipt))
        }
        Task {
            await etas.observe(riderId: riderId, fixes: intake.fresh, now: taken.now)
            done(.success(receipt))
        }
    }

    /// The rider's newest position a customer may see, if the rider reported to this instance since it started.
    func newestShowable(riderId: UUID) -> TrackedPosition? {
        trails.withLock { $0[riderId]?.newestShowable?.trackedPosition }
    }
}
