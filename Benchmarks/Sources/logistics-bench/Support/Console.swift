import ArgumentParser
import Foundation

/// Unbuffered lines on standard output, so a parent process (or a person) sees them at once.
enum Console {
    static func line(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}

extension Console {
    /// A readable one-line failure on standard error, and a non-zero exit status; never a stack trace.
    static func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        return ExitCode.failure
    }
}
