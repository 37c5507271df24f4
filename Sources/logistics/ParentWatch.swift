import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A server the benches start stops when the bench is gone. A bench killed by `timeout` or Ctrl-C would otherwise
/// leave its `logistics serve` running, holding the port, the sockets and a database pool, and the next run would
/// measure beside it. `PR_SET_PDEATHSIG` is no answer: it fires when the thread that spawned the child ends, and the
/// bench spawns from a worker thread that may end any time.
enum ParentWatch {
    /// The environment variable a bench sets to its own process id for the servers it starts.
    static let variable = "LOGISTICS_PARENT_PID"

    /// Names this process in a child's environment, as the parent the child is to outlive no longer than.
    static func nameThisProcess(in environment: inout [String: String]) {
        environment[variable] = String(getpid())
    }

    /// Watches the parent named by `LOGISTICS_PARENT_PID`, if any, and sends this process SIGTERM (the server's
    /// graceful stop) once it is reparented.
    static func stopWhenParentIsGone() {
        guard let value = ProcessInfo.processInfo.environment[variable], let parent = pid_t(value) else { return }
        Thread.detachNewThread {
            while getppid() == parent { Thread.sleep(forTimeInterval: 0.5) }
            Console.line("the bench that started this server (process \(parent)) is gone; stopping")
            kill(getpid(), SIGTERM)
        }
    }
}
