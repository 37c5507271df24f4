import Dispatch

/// A task executor with a thread of its own, for a loop whose every step waits on the database: its resumptions
/// then do not queue behind thousands of socket tasks on the shared pool. The group commit ran over a hundred such
/// steps a transaction, and under load each one waited its turn there.
final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
