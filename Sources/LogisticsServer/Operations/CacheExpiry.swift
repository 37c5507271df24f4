import Foundation
import Logging
import LogisticsCore
import RoadRouting
import ServiceLifecycle

/// Once a minute, forgets what the server only remembers for speed and no longer needs, so its memory follows the
/// live load (riders reporting, tokens in use, the map) and not how long it has run: riders not heard from for half
/// an hour (their dedup trail, their ETA watch), expired tokens, callers past their check, departure hierarchies
/// nobody asked for in ten minutes, and learned speeds past their cap. Each was a table that kept everything it
/// had ever seen (issue #48's soak).
struct CacheExpiry: Service {
    let ingest: LocationIngest
    let etas: EtaLedger
    let verifier: AccessTokenVerifier
    let callerCache: CallerCache
    let directions: any DirectionsProvider
    let clock: any WallClock
    let logger: Logger
    var interval: Duration = .seconds(60)
    /// Learned-speed tallies one map may hold (about 50 bytes each).
    var learnedTallies = CacheExpiry.defaultLearnedTallies

    static let defaultLearnedTallies = 2_000_000

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                tidy()
            }
        }
    }

    /// One pass; returns how many entries went, by table.
    @discardableResult
    func tidy() -> [String: Int] {
        let now = clock.now()
        var forgotten = [
            "rider_trails": ingest.forgetIdleRiders(now: now),
            "eta_watches": etas.forgetIdleRiders(now: now),
            "verified_tokens": verifier.forgetExpired(),
            "known_callers": callerCache.forgetOld(now: now),
        ]
        forgotten.merge(directions.forget(now: now, learnedTallies: learnedTallies)) { $0 + $1 }
        if forgotten.values.contains(where: { $0 > 0 }) {
            logger.debug(
                "forgot what is no longer needed",
                metadata: forgotten.mapValues { Logger.MetadataValue.stringConvertible($0) })
        }
        return forgotten
    }
}
