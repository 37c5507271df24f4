import Foundation
import Synchronization

/// Latencies per endpoint, kept whole so percentiles are exact.
final class LatencyRecorder: Sendable {
    private let samples = Mutex<[String: [Double]]>([:])
    private let failures = Mutex<[String: Int]>([:])

    func record(_ endpoint: String, seconds: Double) {
        samples.withLock { $0[endpoint, default: []].append(seconds) }
    }

    func fail(_ endpoint: String) {
        failures.withLock { $0[endpoint, default: 0] += 1 }
    }

    struct Row {
        var endpoint: String
        var count: Int
        var failures: Int
        var p50: Double
        var p95: Double
        var p99: Double
        var max: Double
    }

    func rows() -> [Row] {
        let all = samples.withLock { $0 }
        let failed = failures.withLock { $0 }
        return Set(all.keys).union(failed.keys).sorted().map { endpoint in
            let sorted = (all[endpoint] ?? []).sorted()
            return Row(
                endpoint: endpoint, count: sorted.count, failures: failed[endpoint] ?? 0,
                p50: Self.percentile(sorted, 0.50), p95: Self.percentile(sorted, 0.95),
                p99: Self.percentile(sorted, 0.99), max: sorted.last ?? 0)
        }
    }

    /// The nearest-rank percentile of already sorted values; 0 when there are none.
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))]
    }

    var total: Int { samples.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// The rows as the load benchmarks print them: count, failures and percentiles in milliseconds.
    static func printTable(_ rows: [Row]) {
        // As wide as the longest name: a path with its ids as {id} runs long.
        let width = max(22, rows.map(\.endpoint.count).max() ?? 0)
        Console.line(
            "endpoint".padding(toLength: width, withPad: " ", startingAt: 0)
                + "   count  fail   p50 ms   p95 ms   p99 ms   max ms")
        for row in rows {
            Console.line(
                row.endpoint.padding(toLength: width, withPad: " ", startingAt: 0)
                    + String(
                        format: " %7d %5d %8.2f %8.2f %8.2f %8.2f", row.count, row.failures, row.p50 * 1000,
                        row.p95 * 1000, row.p99 * 1000, row.max * 1000))
        }
    }
}

/// p50, p99 and the maximum of some latencies, in seconds; zeros when there are none.
struct LatencySummary {
    var p50 = 0.0
    var p99 = 0.0
    var max = 0.0

    init(_ values: [Double]) {
        let sorted = values.sorted()
        p50 = LatencyRecorder.percentile(sorted, 0.5)
        p99 = LatencyRecorder.percentile(sorted, 0.99)
        max = sorted.last ?? 0
    }
}
