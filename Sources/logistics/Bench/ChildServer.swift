import Foundation
import Synchronization

/// This same binary (or `LOGISTICS_BENCH_SERVER`) started as `logistics serve` in a child process, so the crash bench can kill it with
/// SIGKILL as an operator's machine or the kernel's OOM killer would.
final class ChildServer: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private(set) var port = 0

    /// Another build's binary serves when LOGISTICS_BENCH_SERVER names it: two builds measured with the same load
    /// generator, alternately in the same hour, differ only by the server.
    static var serverBinary: URL {
        let server = ProcessInfo.processInfo.environment["LOGISTICS_BENCH_SERVER"] ?? "/proc/self/exe"
        return URL(fileURLWithPath: server).resolvingSymlinksInPath()
    }

    init(dataDirectory: String, environment: [String: String]) throws {
        process.executableURL = Self.serverBinary
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory]
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "DATABASE_URL")
        for (key, value) in environment { env[key] = value }
        ParentWatch.nameThisProcess(in: &env)
        process.environment = env
        process.standardOutput = output
        let log = (dataDirectory as NSString).appendingPathComponent("server.log")
        if !FileManager.default.fileExists(atPath: log) {
            _ = FileManager.default.createFile(atPath: log, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        process.standardError = handle
    }

    /// Starts the server and waits for the line with its URL.
    func start(timeout: Duration = .seconds(60)) async throws {
        try process.run()
        let handle = output.fileHandleForReading
        let announced = AnnouncedPort()
        // Reads to the end, so a chatty server never blocks on a full pipe.
        Thread.detachNewThread {
            var seen = ""
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                guard announced.port == nil else { continue }
                seen += String(decoding: chunk, as: UTF8.self)
                if let range = seen.range(of: #"http://[0-9.]+:[0-9]+"#, options: .regularExpression) {
                    announced.port = Int(seen[range].split(separator: ":").last!)
                }
            }
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, process.isRunning {
            if let found = announced.port {
                port = found
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(SIGKILL)
        throw BenchClient.Failure(description: "the server did not start within \(timeout)")
    }

    func kill(_ signal: Int32) {
        if process.isRunning { Foundation.kill(process.processIdentifier, signal) }
    }

    func waitForExit() async -> Int32 {
        while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        return process.terminationStatus
    }
}

/// The port the child printed, handed from the thread reading its output.
private final class AnnouncedPort: Sendable {
    private let value = Mutex<Int?>(nil)
    var port: Int? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
