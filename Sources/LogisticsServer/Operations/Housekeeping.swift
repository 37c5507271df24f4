import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import ServiceLifecycle

/// Rolls PostgreSQL's daily partitions of location fixes, prunes the bookkeeping tables (idempotency keys, finished
/// notifications, fanned-out outbox rows, spent sign-in codes and refresh tokens), location fixes and photos past
/// their retention, and photo files no proof refers to, once an hour, so a server that runs for months does not grow without end. With several instances
/// each one prunes; the deletes are idempotent, so that only costs a little duplicated work.
struct Housekeeping: Service {
    let repository: any LogisticsRepository
    let blobs: any BlobStore
    let clock: any WallClock
    let logger: Logger
    var policy = RetentionPolicy()
    /// The first pass waits a minute, so a starting server (and the tests) first serve requests.
    var firstPass: Duration = .seconds(60)
    var interval: Duration = .seconds(3600)

    func run() async throws {
        // Sleeping an hour must not hold up a shutdown: the sleeps end when shutdown begins.
        await cancelWhenGracefulShutdown {
            do { try await Task.sleep(for: firstPass) } catch { return }
            while !Task.isCancelled {
                await pruneOnce()
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }

    func pruneOnce() async {
        do {
            let now = clock.now()
            // Whole days first: what is left for the row-by-row retention is then at most a day or two of fixes.
            let partitions = try await repository.rollLocationPartitions(now: now, retention: policy.locationFixes)
            if partitions != LocationPartitionRoll() {
                logger.info(
                    "housekeeping rolled the daily partitions of location fixes",
                    metadata: [
                        "created": "\(partitions.created.joined(separator: ","))",
                        "dropped": "\(partitions.dropped.joined(separator: ","))",
                    ])
            }
            let pruned = try await repository.prune(policy, now: now, batch: 1000)
            // After the rows, so the files of photos pruned just now go in the same pass.
            let files = try await BlobSweep(repository: repository, blobs: blobs).run(now: now)
            // Expired sign-in codes, code requests past the send window, refresh tokens of ended sessions.
            let signIn = try await repository.pruneSignIn(now: now)
            if pruned.total + files + signIn > 0 {
                logger.info(
                    "housekeeping pruned old rows",
                    metadata: [
                        "idempotency_keys": "\(pruned.idempotencyKeys)", "notifications": "\(pruned.notifications)",
                        "outbox": "\(pruned.outbox)", "location_fixes": "\(pruned.locationFixes)",
                        "eta_predictions": "\(pruned.etaPredictions)",
                        "photos": "\(pruned.photos)", "photo_files": "\(files)",
                        "anonymised_orders": "\(pruned.anonymisedOrders)", "sign_in": "\(signIn)",
                    ])
            }
        } catch {
            logger.warning("housekeeping pass failed; will retry", metadata: ["error": "\(error)"])
        }
    }
}
