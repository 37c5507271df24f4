import Foundation
import Synchronization

/// The deadline came first; `withDeadline` words it, with what `PostgresConnectProbe` found.
struct DeadlineMissed: Error {}

/// The first of an operation's result, its deadline and its caller's cancellation answers the caller; the others
/// find the continuation taken.
final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var finished = false
        var cancelled = false
        var cleanups: [@Sendable () -> Void] = []
        var cancellers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Answers the caller unless someone already did; true when this call did.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (continuation, cleanups) = state.withLock {
            state -> (CheckedContinuation<T, any Error>?, [@Sendable () -> Void]) in
            guard !state.finished, let continuation = state.continuation else { return (nil, []) }
            state.finished = true
            state.continuation = nil
            return (continuation, state.cleanups)
        }
        guard let continuation else { return false }
        cleanups.forEach { $0() }
        continuation.resume(with: result)
        return true
    }

    func whenFinished(_ cleanup: @escaping @Sendable () -> Void) {
        let already = state.withLock { state -> Bool in
            if !state.finished { state.cleanups.append(cleanup) }
            return state.finished
        }
        if already { cleanup() }
    }

    /// What to stop when the caller is cancelled; runs at once if it already was.
    func onCancel(_ canceller: @escaping @Sendable () -> Void) {
        let already = state.withLock { state -> Bool in
            if !state.cancelled { state.cancellers.append(canceller) }
            return state.cancelled
        }
        if already {
            canceller()
            finish(.failure(CancellationError()))
        }
    }

    func cancel() {
        let cancellers = state.withLock { state -> [@Sendable () -> Void] in
            state.cancelled = true
            return state.cancellers
        }
        cancellers.forEach { $0() }
        finish(.failure(CancellationError()))
    }
}
