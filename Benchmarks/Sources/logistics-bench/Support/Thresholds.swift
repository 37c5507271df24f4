import Foundation

/// A benchmark's targets as data beside it (`Benchmarks/Thresholds/logistics-bench/<bench>.json`: per endpoint, the
/// p95 it must stay under), checked by the bench itself at the end of a run, as swift-nio's benchmarks hold theirs.
struct Thresholds: Decodable {
    struct Target: Decodable {
        var p95Milliseconds: Double
    }

    let targets: [String: Target]

    init(from decoder: any Decoder) throws {
        targets = try decoder.singleValueContainer().decode([String: Target].self)
    }

    /// The file of that name in this checkout's `Benchmarks/Thresholds/logistics-bench/`.
    static func named(_ bench: String) throws -> Thresholds {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Thresholds/logistics-bench/\(bench).json")
        do {
            return try JSONDecoder().decode(Thresholds.self, from: Data(contentsOf: file))
        } catch {
            throw Console.failure("cannot read the targets in \(file.path): \(error)")
        }
    }

    /// One line per target, and the targets missed (an endpoint never measured counts as missed).
    func check(_ rows: [LatencyRecorder.Row]) -> [String] {
        var missed: [String] = []
        for (endpoint, target) in targets.sorted(by: { $0.key < $1.key }) {
            guard let row = rows.first(where: { $0.endpoint == endpoint }), row.count > 0 else {
                missed.append("\(endpoint): not measured")
                continue
            }
            let p95 = row.p95 * 1000
            let met = p95 < target.p95Milliseconds
            let figures = String(format: "p95 < %.0f ms: %.2f ms", target.p95Milliseconds, p95)
            Console.line("target \(endpoint) \(figures), \(met ? "met" : "MISSED")")
            if !met { missed.append("\(endpoint) \(figures)") }
        }
        return missed
    }
}
