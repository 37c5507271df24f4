import Foundation

/// Faults the crash tests switch on through the environment; all are off unless a test sets them.
enum FaultSwitch {
    /// Ends the process at once, as `kill -9` or a power cut would: no cleanup, no response, no flush.
    static func die(_ moment: String) -> Never {
        FileHandle.standardError.write(Data("fault switch: dying \(moment)\n".utf8))
        kill(getpid(), SIGKILL)
        fatalError("SIGKILL did not end the process")
    }
}
