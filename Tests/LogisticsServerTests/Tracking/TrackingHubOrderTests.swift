import Foundation
import LogisticsCore
import Synchronization
import Testing

@testable import LogisticsServer

/// A customer's socket drops any message whose seq is not above the last it sent, so the hub must hand an order's
/// messages to its followers in seq order even when they are made on different threads at once.
@Suite("Tracking hub order", .timeLimit(.minutes(1)))
struct TrackingHubOrderTests {
    @Test("fixes and stale sweeps made at once on two threads reach a follower in seq order, none missing")
    func concurrentChangesArriveInOrder() async throws {
        let hub = TrackingHub(staleAfterSeconds: 15)
        let (orderId, riderId) = (UUID(), UUID())
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        _ = hub.channel(orderId: orderId, riderId: riderId, status: .inTransit, lastFix: nil, now: start)
        let arrived = Mutex<[Int]>([])
        let follower = TrackingHub.Follower(
            take: { delivery in
                arrived.withLock { $0.append(delivery.message.seq) }
                return true
            }, end: {})
        #expect(hub.follow(orderId: orderId, follower) != nil)

        // Every fix clears `stale` and every sweep, an hour later, sets it again: the two threads keep taking seqs
        // from the same channel. Before the hub ordered its hand-offs, the CI run's socket test lost one in 3,000.
        let fixes = 20_000
        let done = Atomic(false)
        let swept = SweepCount()
        async let sweeps: Void = Task.detached {
            while !done.load(ordering: .acquiring) {
                hub.sweep(now: start.addingTimeInterval(3_600))
                swept.value.add(1, ordering: .releasing)
            }
        }.value
        await Task.detached {
            for step in 0..<fixes {
                // On a loaded machine the sweeping thread may not run at all during the fixes: every so often
                // the fixes wait for a sweep, so the two always interleave.
                if step % 1_000 == 500 {
                    let before = swept.value.load(ordering: .acquiring)
                    while swept.value.load(ordering: .acquiring) == before { sched_yield() }
                }
                let fix = LocationFix(
                    lat: 43 + Double(step) * 0.00036, lon: 7.42, accuracyM: 5,
                    recordedAt: start.addingTimeInterval(Double(step)))
                hub.apply([.fix(riderId: riderId, fix: fix)])
            }
        }.value
        done.store(true, ordering: .releasing)
        await sweeps

        let seqs = arrived.withLock { $0 }
        let made = hub.channel(orderId: orderId, riderId: riderId, status: .inTransit, lastFix: nil, now: start).seq
        #expect(made > fixes, "the sweeps made stale messages among the fixes")
        #expect(seqs.count == made)
        if let disorder = Self.firstDisorder(seqs) {
            Issue.record("seq \(seqs[disorder]) came after \(seqs[disorder - 1])")
        }
        #expect(seqs.first == 1)
    }

    /// The index of the first seq that is not one more than the one before it.
    static func firstDisorder(_ seqs: [Int]) -> Int? {
        zip(seqs.indices.dropFirst(), seqs.dropFirst()).first { index, seq in seq != seqs[index - 1] + 1 }?.0
    }
}

/// Sweeps made so far, shared by the two threads.
private final class SweepCount: Sendable {
    let value = Atomic(0)
}
