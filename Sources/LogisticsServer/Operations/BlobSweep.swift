import Foundation
import LogisticsStore

/// Removes photo files no proof refers to: a crash between storing the file and committing its row leaves one, and
/// retention deletes photo rows before their files. Only files older than the grace are touched, so a photo whose
/// row is still being committed (a database that answers within its 5 s timeout, a retried request) keeps its file.
struct BlobSweep {
    let repository: any LogisticsRepository
    let blobs: any BlobStore
    var grace: TimeInterval = 3600

    /// How many files were removed.
    func run(now: Date) async throws -> Int {
        let cutoff = now.addingTimeInterval(-grace)
        let candidates = try await blobs.digests(storedBefore: cutoff)
        var removed = 0
        for start in stride(from: 0, to: candidates.count, by: 500) {
            let chunk = Array(candidates[start..<min(start + 500, candidates.count)])
            let referenced = try await repository.referencedBlobs(among: chunk)
            for digest in chunk where !referenced.contains(digest) {
                if try await blobs.remove(sha256: digest, ifStoredBefore: cutoff) { removed += 1 }
            }
        }
        return removed
    }
}
