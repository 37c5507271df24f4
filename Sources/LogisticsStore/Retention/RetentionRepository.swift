import Foundation
import LogisticsCore

/// Housekeeping and health: retention, the blob sweep's question, and whether the database answers.
public protocol RetentionRepository: Sendable {
    func prune(_ policy: RetentionPolicy, now: Date, batch: Int) async throws -> PrunedRows
    /// PostgreSQL's daily partitions of the location history: the coming days made, the expired ones dropped.
    func rollLocationPartitions(now: Date, retention: TimeInterval) async throws -> LocationPartitionRoll
    /// Which of these blob digests a proof still refers to.
    func referencedBlobs(among digests: [String]) async throws -> Set<String>
    func ping() async throws
}
