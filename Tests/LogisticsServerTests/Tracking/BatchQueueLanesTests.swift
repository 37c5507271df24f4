import Synchronization
import Testing

@testable import LogisticsServer

/// The group commit may keep two PostgreSQL transactions open at once; the relay's NOTIFYs must stay one at a time.
@Suite("BatchQueue lanes", .timeLimit(.minutes(1)))
struct BatchQueueLanesTests {
    /// One lane: the second and third items wait together for the first batch. Two lanes: the second batch starts
    /// while the first is handled, and the third waits for one of them.
    @Test(
        "batches overlap up to the lanes; what waited for a free lane goes together",
        arguments: [(1, [[1], [2, 3]]), (2, [[1], [2], [3]])])
    func lanes(lanes: Int, batches: [[Int]]) async throws {
        let run = GatedRun(lanes: lanes)
        run.batches.submit([1])
        try await run.until { $0.running == 1 }
        run.batches.submit([2])
        try await run.until { $0.running == lanes }
        run.batches.submit([3])
        try await Task.sleep(for: .milliseconds(50))
        #expect(run.read { $0.running } == lanes)
        await run.gate.open()
        try await run.until { $0.handled.count == 3 }
        #expect(run.read { $0.most } == lanes)
        #expect(run.read { $0.handled.sorted() } == [1, 2, 3])
        #expect(run.read { $0.batches } == batches)
    }
}

/// A batches whose batches wait at a gate, counting how many are handled at once.
private final class GatedRun: Sendable {
    struct Counts {
        var running = 0
        var most = 0
        var handled: [Int] = []
        var batches: [[Int]] = []
    }

    private let box = CountsBox()
    let gate = Gate()
    let batches: BatchQueue<Int>

    func read<T>(_ body: (Counts) -> T) -> T { box.counts.withLock { body($0) } }

    init(lanes: Int) {
        let (box, gate) = (box, gate)
        batches = BatchQueue(lanes: lanes) { batch in
            box.counts.withLock {
                $0.running += 1
                $0.most = max($0.most, $0.running)
                $0.batches.append(batch)
            }
            await gate.wait()
            box.counts.withLock {
                $0.running -= 1
                $0.handled += batch
            }
        }
    }

    func until(_ condition: (Counts) -> Bool) async throws {
        for _ in 0..<200 where !read(condition) {
            try await Task.sleep(for: .milliseconds(10))
        }
        let met = read(condition)
        #expect(met)
    }
}

private final class CountsBox: Sendable {
    let counts = Mutex(GatedRun.Counts())
}

private actor Gate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting = []
    }
}
