import NIOCore
import Synchronization

/// Work for an event loop that may wait while the loop reads its sockets: the riders' acks. NIO runs every task
/// queued while it runs tasks before it polls its sockets again, so the thousands of acks a commit answers at once,
/// each queued on its own, kept the loop from reading for tens of milliseconds, and the fixes waiting to be read
/// reached customers that much later. A lane runs at most `chunk` items a turn, then lets the loop poll first.
final class LoopLane: Sendable {
    /// About a millisecond of writes.
    static let chunk = 64

    /// One lane per loop, for the life of the process (the loops of a server live as long).
    private static let lanes = Mutex<[ObjectIdentifier: LoopLane]>([:])

    static func of(_ loop: any EventLoop) -> LoopLane {
        lanes.withLock { lanes in
            if let lane = lanes[ObjectIdentifier(loop)] { return lane }
            let lane = LoopLane(loop: loop)
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
        // A moment later, not `execute`: a task queued now would still run before the loop polls.
        if more { loop.scheduleTask(in: .microseconds(50)) { self.drain() } }
    }
}
