import Foundation
import LogisticsCore
import LogisticsStore
import Synchronization

/// Group commit for rider fixes: every request waits until its fixes are stored, but all the requests that arrive
/// while one transaction runs share the next one, so the database sees one write per burst instead of one per fix.
/// Under light load a batch is written at once; under heavy load the batches grow instead of the queue.
final class LocationWriter: Sendable {
    private struct Waiting {
        var write: RiderFixWrite
        var done: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var isWriting = false
    }

    private let repository: any LocationRepository
    private let clock: any WallClock
    private let state = Mutex(State())

    init(repository: any LocationRepository, clock: any WallClock) {
        self.repository = repository
        self.clock = clock
    }

    /// Returns once the write is durable; throws what the database threw.
    func store(_ write: RiderFixWrite) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            let startsWriter = state.withLock { state in
                state.waiting.append(Waiting(write: write, done: done))
                guard !state.isWriting else { return false }
                state.isWriting = true
                return true
            }
            if startsWriter { Task { await self.drain() } }
        }
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state -> [Waiting] in
                let batch = state.waiting
                state.waiting = []
                if batch.isEmpty { state.isWriting = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                try await repository.storeFixes(Self.merged(batch.map(\.write)), now: clock.now())
                for waiting in batch { waiting.done.resume() }
            } catch {
                for waiting in batch { waiting.done.resume(throwing: error) }
            }
        }
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
