import Foundation
import Logging
import LogisticsCore
import Prometheus
import RoadRouting
import ServiceLifecycle
import Threads

/// Makes live and learned speeds change which route is chosen, not only its ETA: every `interval`, each map's
/// fastest-route hierarchy is customised for the fresh live speeds and this quarter hour's learned ones, off the
/// cooperative pool, and swapped in whole. Nothing runs while nothing has been observed or learned; once the last
/// live speed expires, the learned (or free-flow) weights come back.
struct TrafficRouting: Service {
    let maps: [RoadMap]
    let customisers: TrafficCustomisers
    let interval: Duration
    let clock: any WallClock
    let registry: PrometheusCollectorRegistry
    let logger: Logger

    func run() async throws {
        // A sleep of 30 s must not hold up a shutdown: it ends when shutdown begins.
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                // Made on the first observation: most servers (and tests) without riders never pay for it.
                for map in maps where map.traffic.revision > 0 || !map.learned.isEmpty {
                    guard let (customiser, isNew) = await customisers.make(for: map) else { continue }
                    if isNew {
                        logger.info(
                            "live traffic enters route choice",
                            metadata: ["profile": "\(map.profile.rawValue)", "method": "\(customiser.method.rawValue)"])
                    }
                    await customise(customiser)
                }
            }
        }
    }

    private func customise(_ customiser: TrafficCustomiser) async {
        let now = clock.now()
        let started = ContinuousClock.now
        guard let snapshot = await OwnThread.run({ customiser.customiseIfChanged(now: now) }) else { return }
        let profile = customiser.map.profile.rawValue
        registry.durationHistogram(
            .trafficCustomisationDuration, labels: [("profile", profile)],
            buckets: [.milliseconds(10), .milliseconds(100), .seconds(1), .seconds(10), .seconds(60)]
        ).record(ContinuousClock.now - started)
        registry.gauge(.trafficLiveArcs, labels: [("profile", profile)]).set(to: Double(snapshot.liveArcs))
    }
}
