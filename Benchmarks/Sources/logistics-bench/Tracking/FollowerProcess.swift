import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A second load-generator process holding some of the customers' sockets (`bench tracking --generators N`). The
/// two sides talk through files in the bench's directory: the plan, a `ready` mark, a `report` request and the
/// report itself.
final class FollowerProcess: @unchecked Sendable {
    private let process = Process()
    private let directory: URL

    private var ready: URL { directory.appendingPathComponent("ready") }
    private var request: URL { directory.appendingPathComponent("report-now") }
    private var followers: URL { directory.appendingPathComponent("followers.txt") }
    private var deliveries: URL { directory.appendingPathComponent("deliveries.bin") }

    private init(directory: URL) { self.directory = directory }

    var cpuSeconds: Double { ProcessCPU.seconds(pid: process.processIdentifier) }

    static func start(_ targets: [FollowerTarget], in parent: URL, index: Int) throws -> FollowerProcess {
        let directory = parent.appendingPathComponent("generator-\(index)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try targets.map(\.line).joined(separator: "\n").write(
            to: directory.appendingPathComponent("plan.txt"), atomically: true, encoding: .utf8)
        let child = FollowerProcess(directory: directory)
        child.process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.process.arguments = ["followers", "--directory", directory.path, "--name", "generator \(index)"]
        try ChildProcesses.run(child.process)
        return child
    }

    /// Returns once every socket of the child follows its order (or the child gave up on the slow ones).
    func waitUntilReady() async throws {
        while !FileManager.default.fileExists(atPath: ready.path) {
            guard process.isRunning else { throw Console.failure("a load-generator process stopped while connecting") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Asks the child to settle and report, and reads what its sockets saw.
    func report() async throws -> (followers: [FollowerReport], deliveries: [(latency: Double, at: Date)]) {
        // The child waits for this file: without it the bench would wait forever.
        guard FileManager.default.createFile(atPath: request.path, contents: nil) else {
            throw BenchFailure(description: "could not write \(request.path) to ask the followers to report")
        }
        while process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        guard process.terminationStatus == 0, let text = try? String(contentsOf: followers, encoding: .utf8),
            let bytes = try? Data(contentsOf: deliveries)
        else { throw Console.failure("a load-generator process ended without its report") }
        let values = bytes.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
        let pairs = stride(from: 0, to: values.count - 1, by: 2).map {
            (latency: values[$0], at: Date(timeIntervalSince1970: values[$0 + 1]))
        }
        return (text.split(separator: "\n").compactMap(FollowerReport.init(line:)), pairs)
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }
}

/// The child's side: `logistics-bench followers`, started by `logistics-bench tracking --generators N`, not by people.
struct FollowersBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "followers", abstract: "Customer sockets for `bench tracking --generators N`.",
        shouldDisplay: false)

    @Option(help: "The directory with plan.txt; the report is written there.") var directory: String
    @Option(help: "How progress lines name this process.") var name: String

    func run() async throws {
        _ = FileDescriptors.raiseLimit()
        let folder = URL(fileURLWithPath: directory)
        let plan = try String(contentsOf: folder.appendingPathComponent("plan.txt"), encoding: .utf8)
        let targets = plan.split(separator: "\n").compactMap(FollowerTarget.init(line:))
        let group = try await FollowerGroup.connect(targets) { count in
            if count % 1000 == 0 { Console.line("  \(name): \(count)/\(targets.count) sockets following") }
        }
        guard FileManager.default.createFile(atPath: folder.appendingPathComponent("ready").path, contents: nil) else {
            throw BenchFailure(description: "could not write \(folder.path)/ready")
        }
        let request = folder.appendingPathComponent("report-now").path
        while !FileManager.default.fileExists(atPath: request) {
            // The bench that started this process is gone: nobody will ask.
            if getppid() == 1 { throw ExitCode(1) }
            try await Task.sleep(for: .milliseconds(100))
        }
        try await group.settle()
        try group.reports().map(\.line).joined(separator: "\n").write(
            to: folder.appendingPathComponent("followers.txt"), atomically: true, encoding: .utf8)
        let values = group.deliveries().flatMap { [$0.latency, $0.at.timeIntervalSince1970] }
        try values.withUnsafeBytes { Data($0) }.write(to: folder.appendingPathComponent("deliveries.bin"))
    }
}
