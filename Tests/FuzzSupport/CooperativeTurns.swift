/// Lets a long synchronous loop in an async test give its thread back every few milliseconds.
///
/// Tests run on Swift's cooperative pool, one thread per core, and so do the in-process servers of every other
/// suite running beside them. A fuzz loop that keeps its thread for seconds leaves a 2-core machine's servers half
/// a pool; two of them leave none, and the requests of unrelated tests time out. Passing the turn between cases
/// lets the jobs queued meanwhile run.
public struct CooperativeTurns {
    private let interval: Duration
    private var last = ContinuousClock.now

    public init(every interval: Duration = .milliseconds(10)) {
        self.interval = interval
    }

    public mutating func pass() async {
        guard ContinuousClock.now - last >= interval else { return }
        await Task.yield()
        last = ContinuousClock.now
    }
}
