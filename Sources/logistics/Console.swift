import Foundation

/// Unbuffered lines on standard output, so a parent process (or a person) sees them at once.
enum Console {
    static func line(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
