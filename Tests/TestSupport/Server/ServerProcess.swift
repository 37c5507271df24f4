import Foundation

/// The real `logistics` binary, started as a child process the way an operator would.
public final class ServerProcess: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    public private(set) var port = 0
    private let errorPipe: Pipe?
    private var errorText: Task<String, Never>?

    /// The binary `LOGISTICS_BINARY` names (a benchmark comparing two builds with the same load generator), or the
    /// one next to the test bundle or benchmark (`swift build --build-tests` builds both).
    public static var binary: URL? {
        if let named = ProcessInfo.processInfo.environment["LOGISTICS_BINARY"] {
            return URL(fileURLWithPath: named).resolvingSymlinksInPath()
        }
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [
            here.appendingPathComponent("logistics"),
            here.deletingLastPathComponent().appendingPathComponent("logistics"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// `captureStandardError`: keep what the server logs, for `standardErrorText()` once it has exited.
    public init(arguments: [String], environment: [String: String], captureStandardError: Bool = false) throws {
        guard let binary = Self.binary else { throw ProcessError("logistics binary not found next to the tests") }
        process.executableURL = binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "DATABASE_URL")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = output
        errorPipe = captureStandardError ? Pipe() : nil
        process.standardError = errorPipe ?? FileHandle.nullDevice
    }

    /// Everything the process wrote to standard error; waits for it to close (the process to exit).
    public func standardErrorText() async -> String {
        await errorText?.value ?? ""
    }

    private func run() throws {
        try process.run()
        if let handle = errorPipe?.fileHandleForReading {
            errorText = Task { await Self.readToEnd(handle) }
        }
    }

    /// Reads a pipe to its end on a thread of its own. A blocking read on the concurrency pool (two threads on a
    /// 2-core machine) starved every other test: two servers' logs being read stopped the run (seen in CI).
    static func readToEnd(_ handle: FileHandle) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: String(decoding: handle.readDataToEndOfFile(), as: UTF8.self))
            }
        }
    }

    /// The next chunk a pipe gives (empty at its end), read on a thread of its own for the same reason.
    static func nextChunk(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: handle.availableData) }
        }
    }

    /// Starts the process and waits for the line announcing its URL.
    public func start(timeout: Duration = .seconds(60)) async throws {
        try run()
        let handle = output.fileHandleForReading
        let deadline = ContinuousClock.now + timeout
        var seen = ""
        while ContinuousClock.now < deadline {
            let chunk = await Self.nextChunk(handle)
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
            if let range = seen.range(of: #"https?://[0-9.]+:([0-9]+)"#, options: .regularExpression) {
                let url = String(seen[range])
                port = Int(url.split(separator: ":").last!)!
                return
            }
        }
        process.terminate()
        throw ProcessError("server did not print its URL; output so far: \(seen)")
    }

    /// Runs a command that ends by itself (`simulate`) and returns its exit status and everything it printed.
    public func runToEnd(timeout: Duration) async throws -> (status: Int32, text: String) {
        try run()
        let handle = output.fileHandleForReading
        let collected = Task { await Self.readToEnd(handle) }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        if process.isRunning {
            process.terminate()
            throw ProcessError("\(process.arguments ?? []) did not finish within \(timeout)")
        }
        return (process.terminationStatus, await collected.value)
    }

    public func kill(_ signal: Int32) {
        Foundation.kill(process.processIdentifier, signal)
    }

    public func waitForExit() async -> Int32 {
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        return process.terminationStatus
    }
}

public struct ProcessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
