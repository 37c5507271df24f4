import Foundation
import Testing

@testable import TestSupport

/// `logistics bench crash` run as an operator would: a few kill -9 rounds under delivery load on each store
/// (the README's figure comes from 20 rounds).
@Suite("kill -9 under delivery load", .serialized, .timeLimit(.minutes(3)))
struct CrashBenchTests {
    @Test(
        "every acknowledged write survives kill -9 and a restart, no gaps, nothing half-done",
        arguments: StoreKind.available)
    func noAcknowledgedWriteLost(store: StoreKind) async throws {
        var arguments = ["bench", "crash", "--rounds", "3", "--riders", "6", "--max-seconds", "2"]
        if store == .postgres, let url = StoreKind.postgresURL { arguments += ["--database-url", url] }
        let bench = try ServerProcess(arguments: arguments, environment: [:], captureStandardError: true)
        let (status, text) = try await bench.runToEnd(timeout: .seconds(150))
        let errors = await bench.standardErrorText()
        #expect(status == 0, "\(text)\n\(errors)")
        let summary = try #require(text.split(separator: "\n").last.map(String.init))
        #expect(summary.hasPrefix("0 lost of "), "\(text)")
        #expect(summary.contains("0 sequence gaps, 0 half-done orders"))
        let acknowledged = Int(summary.split(separator: " ")[3]) ?? 0
        // Each round kills after its first acknowledged write; fewer than one a round means the load never ran.
        #expect(acknowledged >= 3, "the load must have been running when the server was killed: \(summary)")
    }
}
