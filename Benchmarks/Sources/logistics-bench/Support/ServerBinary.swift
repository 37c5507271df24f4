import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The `logistics` binary the benches start as `serve`: the one `LOGISTICS_BINARY` names, or the one built next to
/// this bench.
enum ServerBinary {
    static var url: URL {
        get throws {
            guard let binary = ServerProcess.binary, FileManager.default.isExecutableFile(atPath: binary.path) else {
                throw Console.failure(
                    "no logistics binary next to logistics-bench: build it with "
                        + "`swift build -c release --package-path Benchmarks --product logistics`, "
                        + "or name one with LOGISTICS_BINARY")
            }
            return binary
        }
    }
}

/// The processes a bench starts (servers, more load generators) end with it: a bench stopped by `timeout` or
/// Ctrl-C would otherwise leave its servers running, holding the port and a database pool, and the next run would
/// measure beside them.
enum ChildProcesses {
    private static let watch: Void = {
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                for pid in running.withLock({ $0 }) { kill(pid, SIGTERM) }
                exit(128 + signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }()
    private static let running = Mutex<[pid_t]>([])
    /// Kept: a signal source that is released stops watching. Written once, by `watch`'s one-time initialiser.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Starts `process`, to be stopped with SIGTERM if this bench is stopped first.
    static func run(_ process: Process) throws {
        _ = watch
        try process.run()
        let pid = process.processIdentifier
        running.withLock { $0.append(pid) }
    }
}
