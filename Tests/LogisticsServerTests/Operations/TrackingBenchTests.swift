import Foundation
import Testing

@testable import TestSupport

/// `logistics bench tracking` at a toy size, both ways riders can send: the figures in docs/performance.md come from
/// this command, so it must keep running and keep counting what it claims.
@Suite("The tracking benchmark", .serialized, .timeLimit(.minutes(3)))
struct TrackingBenchTests {
    @Test("riders over HTTP and over their own sockets: every fix acknowledged, every socket held, nothing lost")
    func smallRun() async throws {
        // At 6.6 m a fix customers are shown a position every 5 s or 25 m, not every fix; the last one still
        // reaches them.
        // Socket riders may keep 4 messages unanswered, as a phone that does not wait for each ack.
        for (transport, metres, more) in [("http", "33.0", []), ("socket", "6.6", ["--in-flight", "4"])] {
            let bench = try ServerProcess(
                arguments: [
                    "bench", "tracking", "--customers", "20", "--riders", "30", "--orders", "10", "--duration", "5",
                    "--interval", "1", "--fixes-over", transport, "--metres-per-fix", metres,
                ] + more, environment: [:], captureStandardError: true)
            let (status, text) = try await bench.runToEnd(timeout: .seconds(120))
            let errors = await bench.standardErrorText()
            #expect(status == 0, "\(text)\n\(errors)")
            #expect(text.contains("sockets held at the end: 20 of 20"), "\(text)")
            #expect(text.contains("riders: 30, a fix every 1.0 s, \(metres) m apart, over \(transport)"), "\(text)")
            #expect(text.contains("CPU during the traffic: servers"), "\(text)")
            // 30 riders, one fix a second for 5 s.
            #expect(text.contains("fixes: 150 acknowledged, 0 failed"), "\(text)")
            #expect(text.contains("lost: 0 (sockets"), "\(text)")
            #expect(text.contains("misordered or duplicated: 0, seq gaps: 0"), "\(text)")
        }
    }
}
