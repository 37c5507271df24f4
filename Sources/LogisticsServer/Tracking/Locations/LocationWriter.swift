import Foundation
import LogisticsCore
import LogisticsStore

/// Group commit for rider fixes: every request waits until its fixes are stored, but all the requests that arrive
/// while one transaction runs share the next one, so the database sees one write per burst instead of one per fix.
/// Under light load a batch is written at once; under heavy load the batches grow instead of the queue.
final class LocationWriter: Sendable {
    private struct Waiting {
        var write: RiderFixWrite
        /// Called on the writer's thread once the transaction ended: nil when it committed.
        var done: @Sendable ((any Error)?) -> Void
    }

    private let batches: BatchQueue<Waiting>

    /// One thread for all the writers of the process: they take turns on the database anyway.
    private static let executor = DedicatedExecutor(label: "location-group-commit")

    /// At most one commit per interval under a steady stream: a fix waits up to this long for others to share its
    /// transaction. Under evenly spread fixes this halved the server's CPU against a commit per fix; twice as long
    /// saved little more.
    static let commitInterval = Duration.milliseconds(5)

    /// `commitsAtOnce`: how many transactions may be open together. PostgreSQL runs each in a backend of its own,
    /// on a core of its own: with one at a time, one backend's core was the ceiling (large commits took over a
    /// second while other cores had CPU to spare). Two commits that share a rider cannot happen over the rider's
    /// socket, which sends a batch only when the last is answered; over HTTP (a phone's retry beside its first try)
    /// both are safe: fixes are deduplicated, positions only move forward, and every write locks its riders in one
    /// order, so the two queue instead of deadlocking.
    /// SQLite has one writer: one at a time.
    init(repository: any LocationRepository, clock: any WallClock, commitsAtOnce: Int = 1) {
        batches = BatchQueue(executor: Self.executor, interval: Self.commitInterval, lanes: commitsAtOnce) { batch in
            do {
                try await repository.storeFixes(Self.merged(batch.map(\.write)), now: clock.now())
                for waiting in batch { waiting.done(nil) }
            } catch {
                for waiting in batch { waiting.done(error) }
            }
        }
    }

    /// Calls `done` once the write is durable (nil) or failed, on the writer's thread: a rider's socket waits for
    /// thousands of these a second, and a task resumed for each one cost more than the answer it then wrote.
    func submit(_ write: RiderFixWrite, done: @escaping @Sendable ((any Error)?) -> Void) {
        batches.submit([Waiting(write: write, done: done)])
    }

    /// One write per rider: the kept fixes together, the newest positions compared.
    static func merged(_ writes: [RiderFixWrite]) -> [RiderFixWrite] {
        var byRider: [UUID: RiderFixWrite] = [:]
        for write in writes {
            guard var merged = byRider[write.riderId] else {
                byRider[write.riderId] = write
                continue
            }
            merged.kept += write.kept
            merged.newest = newer(merged.newest, write.newest)
            merged.newestShowable = newer(merged.newestShowable, write.newestShowable)
            byRider[write.riderId] = merged
        }
        return Array(byRider.values)
    }

    private static func newer(_ a: LocationFix?, _ b: LocationFix?) -> LocationFix? {
        guard let a, let b else { return a ?? b }
        return b.recordedAt > a.recordedAt ? b : a
    }
}
