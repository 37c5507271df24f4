import HTTPTypes
import Hummingbird
import Synchronization

/// Wakes a background loop that would otherwise wait for its next poll: a request that committed work rings it,
/// and the outbox is drained (and its texts and pushes sent) at once. Other instances are not rung; they find the
/// work at their next poll, as before, and the leases keep them from sending anything twice.
final class WakeSignal: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    init() {}

    /// The waiting loop returns at once; a loop that is busy returns from its next wait at once.
    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when rung, when `timeout` has passed, or when the task is cancelled. One waiter at a time.
    func wait(upTo timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.untilRung() }
            group.addTask { try? await Task.sleep(for: timeout) }
            _ = await group.next()
            group.cancelAll()
        }
    }

    private func untilRung() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Under the lock with the cancellation handler's take: a cancellation either finds the waiter or
                // is seen here, never neither.
                let resumeNow = state.withLock { state -> Bool in
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}

/// Rings the outbox's signal after a request that may have written to it (any change that succeeded).
struct WakeOnChangeMiddleware<Context: RequestContext>: RouterMiddleware {
    let signal: WakeSignal

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let response = try await next(request, context)
        if ![.get, .head, .options].contains(request.method), response.status.code < 400 { signal.ring() }
        return response
    }
}
