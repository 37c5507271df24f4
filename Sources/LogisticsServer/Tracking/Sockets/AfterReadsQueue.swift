import NIOCore
import NIOPosix
import Synchronization

/// Work for an event loop that may wait while the loop reads its sockets: the riders' acks. NIO runs every task
/// queued while it runs tasks before it polls its sockets again, so the thousands of acks a commit answers at once,
/// each queued on its own, kept the loop from reading for tens of milliseconds, and the fixes waiting to be read
/// reached customers that much later. A lane runs at most `chunk` items a turn, then lets the loop poll first.
final class AfterReadsQueue: Sendable {
    /// About a millisecond of writes.
    static let chunk = 64

    /// Tells the lanes when their loop has finished a tick, that is, when it is about to poll its sockets. Give it to
    /// the group whose loops serve the sockets (`ServerLoops`); on a loop that does not report its ticks a lane
    /// only waits 50 µs between turns, which on a busy loop is no wait at all (see `resume`).
    static let tickReporter: any NIOEventLoopMetricsDelegate = TickReporter()

    /// One lane per loop, for the life of the process (the loops of a server live as long).
    private static let lanes = Mutex<[ObjectIdentifier: AfterReadsQueue]>([:])

    static func of(_ loop: any EventLoop) -> AfterReadsQueue {
        lanes.withLock { lanes in
            if let lane = lanes[ObjectIdentifier(loop)] { return lane }
            let lane = AfterReadsQueue(loop: loop)
            lanes[ObjectIdentifier(loop)] = lane
            return lane
        }
    }

    private let loop: any EventLoop
    private let state = Mutex<(work: CircularBuffer<@Sendable () -> Void>, isDraining: Bool)>(([], false))

    private init(loop: any EventLoop) { self.loop = loop }

    /// Runs `work` on the loop after the work posted before it.
    func post(_ work: @escaping @Sendable () -> Void) {
        let starts = state.withLock { state in
            state.work.append(work)
            defer { state.isDraining = true }
            return !state.isDraining
        }
        if starts { loop.execute { self.drain() } }
    }

    private func drain() {
        let turn = state.withLock { state in
            var turn: [@Sendable () -> Void] = []
            turn.reserveCapacity(min(Self.chunk, state.work.count))
            while turn.count < Self.chunk, let work = state.work.popFirst() { turn.append(work) }
            return turn
        }
        for work in turn { work() }
        let more = state.withLock { state in
            if state.work.isEmpty { state.isDraining = false }
            return state.isDraining
        }
        if more { resume(afterTick: TickReporter.ticks(of: loop), latest: .now() + .milliseconds(1)) }
    }

    /// The next turn, once the loop has polled since `tick`, or at `latest`. NIO runs a scheduled task before it
    /// polls whenever the task is due by the time the loop's other tasks are done, so on a busy loop a turn 50 µs
    /// later alone ran straight after the last one, and the loop read nothing until the lane was empty. Waiting for
    /// the tick to end costs a check each 50 µs while the loop is busy with other tasks, and nothing once it is
    /// idle; `latest` keeps a tick that never ends (or a loop that stopped reporting) from holding the acks.
    private func resume(afterTick tick: Int?, latest: NIODeadline) {
        loop.scheduleTask(in: .microseconds(50)) {
            if let tick, TickReporter.ticks(of: self.loop) == tick, .now() < latest {
                self.resume(afterTick: tick, latest: latest)
            } else {
                self.drain()
            }
        }
    }

    /// Counts each reporting loop's ticks: the loops are few and live as long as the process.
    private final class TickReporter: NIOEventLoopMetricsDelegate {
        private static let counts = Mutex<[ObjectIdentifier: Int]>([:])

        /// Nil for a loop that does not report its ticks.
        static func ticks(of loop: any EventLoop) -> Int? { counts.withLock { $0[ObjectIdentifier(loop)] } }

        func processedTick(info: NIOEventLoopTickInfo) {
            Self.counts.withLock { $0[info.eventLoopID, default: 0] += 1 }
        }
    }
}

/// The event loops that serve the server's connections: NIO's own, but reporting their ticks to the lanes.
enum ServerLoops {
    static let group = MultiThreadedEventLoopGroup(
        numberOfThreads: System.coreCount, metricsDelegate: AfterReadsQueue.tickReporter)
}
