import Dispatch

/// Runs CPU-bound work (a plan's search for its whole budget, a large travel matrix) on a Dispatch thread and
/// awaits it. Swift's cooperative pool has one thread per core: work that holds one for seconds stalls every
/// request, socket and timer queued behind it (on 2 cores, half the server).
enum OffPool {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
