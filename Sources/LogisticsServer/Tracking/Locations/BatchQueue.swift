import Synchronization

/// What a batch queue holds between batches: `KeepAll` keeps everything, the relay's backlog bounds itself.
protocol BatchBuffer: Sendable {
    associatedtype Item: Sendable
    init()
    mutating func add(_ items: [Item])
    /// Everything held, leaving the buffer empty.
    mutating func takeAll() -> [Item]
}

struct KeepAll<Item: Sendable>: BatchBuffer {
    private var items: [Item] = []

    mutating func add(_ items: [Item]) { self.items += items }

    mutating func takeAll() -> [Item] {
        defer { items = [] }
        return items
    }
}

typealias BatchQueue<Item: Sendable> = BufferedBatchQueue<KeepAll<Item>>

/// One drainer per lane (one lane unless told): items submitted while every lane handles a batch wait and are
/// handled together in the next one. Under light load every item goes at once; under heavy load the batches grow
/// instead of the queue.
/// The group commit of rider fixes and the coalesced NOTIFY payloads both work this way.
///
/// `interval` is the least time between the starts of two batches (PostgreSQL's `commit_delay`, in effect): after
/// an idle spell the first item goes at once, but a steady stream of single items is gathered into one batch per
/// interval instead of one each: with a commit per fix, evenly spread fixes took twice the server's CPU.
final class BufferedBatchQueue<Buffer: BatchBuffer>: Sendable {
    private let state = Mutex<(items: Buffer, draining: Int, lastStart: ContinuousClock.Instant?)>(
        (Buffer(), 0, nil))
    private let handle: @Sendable ([Buffer.Item]) async -> Void
    private let executor: (any TaskExecutor)?
    private let interval: Duration
    private let lanes: Int

    /// `executor`: where the drainers run, when they should not share the pool with everything else. `lanes`: how
    /// many batches may be handled at once; items submitted while every lane is busy wait for the first one free.
    init(
        executor: (any TaskExecutor)? = nil, interval: Duration = .zero, lanes: Int = 1,
        _ handle: @escaping @Sendable ([Buffer.Item]) async -> Void
    ) {
        self.executor = executor
        self.interval = interval
        self.lanes = max(1, lanes)
        self.handle = handle
    }

    func submit(_ items: [Buffer.Item]) {
        let startsDrainer = state.withLock { state in
            state.items.add(items)
            guard state.draining < lanes else { return false }
            state.draining += 1
            return true
        }
        if startsDrainer { Task(executorPreference: executor) { await self.drain() } }
    }

    private func drain() async {
        while true {
            if let lastStart = state.withLock({ $0.lastStart }), ContinuousClock.now < lastStart + interval {
                try? await Task.sleep(until: lastStart + interval, clock: .continuous)
            }
            let batch = state.withLock { state -> [Buffer.Item] in
                let batch = state.items.takeAll()
                if batch.isEmpty { state.draining -= 1 } else { state.lastStart = .now }
                return batch
            }
            guard !batch.isEmpty else { return }
            await handle(batch)
        }
    }
}
