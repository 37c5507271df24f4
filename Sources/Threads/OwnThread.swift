import Foundation

/// Runs CPU-bound work (a plan's search for its whole budget, a large travel matrix, a map's import) on a thread
/// of its own and awaits it.
///
/// Swift's cooperative pool has one thread per core: work that holds one for seconds stalls every request, socket
/// and timer queued behind it. `DispatchQueue.global()` is no way out on Linux: its worker threads are the
/// cooperative pool's (both are the default-QoS root queue, as wide as the cores), so a map import sent there
/// took one of a 2-core machine's two threads and a second import the other, and the whole process stood still
/// for seconds. A thread of its own competes for the cores through the kernel's scheduler instead, so requests keep
/// being answered, only slower.
public enum OwnThread {
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    public static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}
