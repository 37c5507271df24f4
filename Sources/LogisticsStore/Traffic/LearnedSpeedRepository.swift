import Foundation
import LogisticsCore

/// One road segment's learned speed samples in one quarter hour of the week, for one routing profile. A segment is
/// named by the OSM nodes at its ends; samples are kept as a sum of paces (seconds per metre) and a count.
public struct LearnedSpeedRow: Sendable, Equatable {
    public var profile: String
    public var fromNode: Int64
    public var toNode: Int64
    public var slot: Int
    public var paceSum: Double
    public var samples: Int

    public init(profile: String, fromNode: Int64, toNode: Int64, slot: Int, paceSum: Double, samples: Int) {
        self.profile = profile
        self.fromNode = fromNode
        self.toNode = toNode
        self.slot = slot
        self.paceSum = paceSum
        self.samples = samples
    }
}

/// Where the speeds the fleet taught are kept: every instance adds its samples, and every instance reads the totals.
public protocol LearnedSpeedRepository: Sendable {
    /// Adds these samples to the stored totals, in one transaction.
    func addLearnedSpeeds(_ rows: [LearnedSpeedRow], now: Date) async throws
    /// The stored totals of a profile, all of them or only those changed at or after `since`.
    func learnedSpeeds(profile: String, changedSince since: Date?) async throws -> [LearnedSpeedRow]
}

extension SQLLogisticsRepository: LearnedSpeedRepository {
    static let learnedRowsPerInsert = 200

    public func addLearnedSpeeds(_ rows: [LearnedSpeedRow], now: Date) async throws {
        guard !rows.isEmpty else { return }
        try await database.transaction { transaction in
            var start = 0
            while start < rows.count {
                let chunk = rows[start..<min(rows.count, start + Self.learnedRowsPerInsert)]
                let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", ")
                try await transaction.query(
                    """
                    INSERT INTO learned_speeds (profile, from_node, to_node, slot, pace_sum, samples, updated_at)
                    VALUES \(values)
                    ON CONFLICT (profile, from_node, to_node, slot) DO UPDATE SET
                        pace_sum = learned_speeds.pace_sum + excluded.pace_sum,
                        samples = learned_speeds.samples + excluded.samples,
                        updated_at = excluded.updated_at
                    """,
                    chunk.flatMap { row -> [SQLValue] in
                        [
                            .text(row.profile), .int(row.fromNode), .int(row.toNode), .int(row.slot),
                            .double(row.paceSum), .int(row.samples), .date(now),
                        ]
                    })
                start += Self.learnedRowsPerInsert
            }
        }
    }

    public func learnedSpeeds(profile: String, changedSince since: Date?) async throws -> [LearnedSpeedRow] {
        try await database.query(
            """
            SELECT from_node, to_node, slot, pace_sum, samples FROM learned_speeds
            WHERE profile = ? AND updated_at >= ?
            """, [.text(profile), .date(since ?? Date(timeIntervalSince1970: 0))]
        ).map { row in
            LearnedSpeedRow(
                profile: profile, fromNode: Int64(try row.int("from_node")), toNode: Int64(try row.int("to_node")),
                slot: try row.int("slot"), paceSum: row.optionalDouble("pace_sum") ?? 0, samples: try row.int("samples")
            )
        }
    }
}
