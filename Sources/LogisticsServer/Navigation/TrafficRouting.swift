import Foundation
import Logging
import LogisticsCore
import Prometheus
import RoadRouting
import ServiceLifecycle

/// Makes live speeds change which route is chosen, not only its ETA: every `interval`, each map's fastest-route
/// hierarchy is customised for the fresh speeds, off the cooperative pool, and swapped in whole. Nothing runs while
/// no speed has been observed, and once the last live speed expires the free-flow weights come back.
struct TrafficRouting: Service {
    let maps: [RoadMap]
    let interval: Duration
    let clock: any WallClock
    let registry: PrometheusCollectorRegistry
    let logger: Logger

    func run() async throws {
        // A sleep of 30 s must not hold up a shutdown: it ends when shutdown begins.
        await cancelWhenGracefulShutdown {
            // Built on the first observation: most servers (and tests) without live riders never pay for it.
            var customisers: [Int: TrafficCustomiser] = [:]
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                for (index, map) in maps.enumerated() where map.traffic.revision > 0 {
                    if customisers[index] == nil {
                        guard let made = await OffPool.run({ TrafficCustomiser(map: map) }) else { continue }
                        customisers[index] = made
                        logger.info(
                            "live traffic enters route choice",
                            metadata: ["profile": "\(map.profile.rawValue)", "method": "\(made.method.rawValue)"])
                    }
                    await customise(customisers[index]!)
                }
            }
        }
    }

    private func customise(_ customiser: TrafficCustomiser) async {
        let now = clock.now()
        let started = ContinuousClock.now
        guard let snapshot = await OffPool.run({ customiser.customiseIfChanged(now: now) }) else { return }
        let profile = customiser.map.profile.rawValue
        registry.durationHistogram(
            .trafficCustomisationDuration, labels: [("profile", profile)],
            buckets: [.milliseconds(10), .milliseconds(100), .seconds(1), .seconds(10), .seconds(60)]
        ).record(ContinuousClock.now - started)
        registry.gauge(.trafficLiveArcs, labels: [("profile", profile)]).set(to: Double(snapshot.liveArcs))
    }
}
