import Foundation
import Logging
import LogisticsCore
import LogisticsServer
import Synchronization

/// The demo's log: every line goes to `demo.log` in its data directory, so the console keeps to what a person reads
/// (links, delivery codes, one line per delivery event). The map's progress and errors still reach the console.
final class DemoLogFile: Sendable {
    let path: String
    private let handle: Mutex<FileHandle?>
    /// Whether the console is a terminal: progress then rewrites one line instead of printing one per step.
    let interactive = isatty(STDOUT_FILENO) != 0

    init(directory: String) {
        path = URL(fileURLWithPath: directory).appendingPathComponent("demo.log").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        handle = Mutex(FileHandle(forWritingAtPath: path))
    }

    func write(_ line: String) {
        handle.withLock { $0?.write(Data((line + "\n").utf8)) }
    }

    func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "rider-logistics") { DemoLogHandler(label: $0, file: self) }
        logger.logLevel = level
        return logger
    }

    /// A step of the map's import, on the console: rewritten in place on a terminal, only its start and its end
    /// otherwise.
    func progress(_ message: String) {
        if interactive {
            FileHandle.standardOutput.write(Data("\r\u{1B}[K  \(message)".utf8))
            if message.contains(" loaded in ") { FileHandle.standardOutput.write(Data("\n".utf8)) }
        } else if message.hasSuffix(" 0%") && message.contains("reading") || message.contains(" loaded in ") {
            Console.line("  \(message)")
        }
    }
}

struct DemoLogHandler: LogHandler {
    let label: String
    let file: DemoLogFile
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        let merged = self.metadata.merging(metadata ?? [:]) { _, new in new }
        let details = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text = "\(message)"
        self.file.write(
            "\(RFC3339.string(from: Date())) \(level) \(details.isEmpty ? "" : details + " ")[\(source)] \(text)")
        if level >= .error {
            Console.line("error: \(text)\(details.isEmpty ? "" : " (\(details))") — more in \(self.file.path)")
        } else if text == TextMessageLog.message {
            // The log provider's "SMS": a sign-in code must reach the person at the console, prominently.
            let body = merged["text"].map { "\($0)" } ?? ""
            let to = merged["to"].map { "\($0)" } ?? "?"
            if let range = body.range(of: #"sign-in code is [0-9]{6}"#, options: .regularExpression) {
                Console.line("SIGN-IN CODE \(body[range].suffix(6)) for \(to) (valid 5 minutes)")
            } else {
                Console.line("SMS to \(to): \(body)")
            }
        } else if text == "map loaded" {
            self.file.progress("map \(merged["profile"] ?? "") loaded in \(merged["seconds"] ?? "?") s")
        } else if text.hasPrefix("map ") {
            self.file.progress(text)
        }
    }
}
