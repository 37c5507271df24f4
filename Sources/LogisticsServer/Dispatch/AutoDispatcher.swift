import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import Prometheus
import ServiceLifecycle
import Threads

/// Automatic dispatch: a ready order is offered to one rider at a time, the quickest by road to the store from
/// their last position (ties to the longest wait). An order still being prepared, with the vendor's preparation
/// time, is offered once that rider's ride is as long as the time left, so the rider arrives as the goods are
/// ready rather than waiting at the counter or leaving them to cool. A declined or lapsed offer moves on at once;
/// after `rounds` offers, or with nobody within reach, the order is handed to dispatchers. Told of ready orders and
/// declines on this instance; a sweep finds the rest (lapsed offers, other instances' orders). The store re-checks
/// every write under the order's lock, so instances may dispatch side by side.
final class AutoDispatcher: Service, Sendable {
    private let repository: any DispatchRepository
    private let navigator: Navigator
    private let settings: DispatchSettings
    private let offerTTL: TimeInterval
    private let clock: any WallClock
    private let logger: Logger
    private let decisionTime: DurationHistogram
    private let nudges: AsyncStream<UUID>
    private let nudge: AsyncStream<UUID>.Continuation

    init(
        repository: any DispatchRepository, navigator: Navigator, settings: DispatchSettings, offerTTL: TimeInterval,
        clock: any WallClock, registry: PrometheusCollectorRegistry, logger: Logger
    ) {
        self.repository = repository
        self.navigator = navigator
        self.settings = settings
        self.offerTTL = offerTTL
        self.clock = clock
        self.logger = logger
        decisionTime = registry.durationHistogram(
            .dispatchDecisionDuration, labels: [],
            buckets: [
                .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                .milliseconds(100), .milliseconds(250), .seconds(1),
            ])
        (nudges, nudge) = AsyncStream.makeStream(of: UUID.self, bufferingPolicy: .bufferingNewest(10_000))
    }

    /// The order may need a rider now (it became ready, or its rider declined): decide at once.
    func orderNeedsRider(_ orderId: UUID) {
        nudge.yield(orderId)
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await orderId in self.nudges {
                        await self.dispatchAwaiting(only: orderId)
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        await self.dispatchAwaiting(only: nil)
                        do { try await Task.sleep(for: .seconds(self.settings.sweepSeconds)) } catch { break }
                    }
                    self.nudge.finish()
                }
            }
        }
    }

    /// Dispatches the orders that await a rider (or just the one named), each once.
    func dispatchAwaiting(only orderId: UUID?) async {
        do {
            let orders = try await repository.ordersAwaitingDispatch(
                orderId: orderId, vendors: settings.vendors, now: clock.now(), lead: settings.ranking.maxRoadSeconds,
                limit: 100)
            for order in orders { try await dispatch(order) }
        } catch is CancellationError {
        } catch {
            logger.warning("automatic dispatch pass failed; the next sweep retries", metadata: ["error": "\(error)"])
        }
    }

    private func dispatch(_ order: Order) async throws {
        let started = ContinuousClock.now
        defer { decisionTime.record(ContinuousClock.now - started) }
        let rounds = try await repository.automaticRounds(orderId: order.id)
        guard rounds < settings.rounds else {
            try await escalate(order, reason: "no rider accepted after \(rounds) offers", considered: [])
            return
        }
        let now = clock.now()
        let free = try await repository.freeRiders(for: order.id, now: now)
        let onTrips =
            settings.batching == nil
            ? [] : try await repository.tripRiders(for: order.id, maxOrders: settings.batchMaxOrders, now: now)
        let store = order.vendor.location
        let (freeCandidates, measure, plans) = await OwnThread.run { [self] in
            let (candidates, measure) = roadTimes(free, to: store)
            return (candidates, measure, tripPlans(for: order, among: onTrips, now: now))
        }
        // A rider on a trip competes with the time the plan gets them to the store, and never wins a tie against
        // a rider who has been waiting.
        let candidates =
            freeCandidates
            + plans.map {
                DispatchCandidate(riderId: $0.key, roadSeconds: $0.value.newStoreArrivalSeconds, freeSince: now)
            }
        // Seconds until the vendor expects the goods, for an order still being prepared.
        let readyIn = order.secondsUntilReady(at: now)
        switch settings.ranking.rank(candidates) {
        case .nobodyYet:
            return
        case .noneInReach where readyIn != nil:
            // Nobody near yet, but the order is not ready either: dispatchers hear of it only once it is.
            return
        case .ranked(let ranked) where readyIn.map { (ranked[0].roadSeconds ?? 0) < $0 } ?? false:
            // The best rider would be there before the goods; asked later, someone as good may be nearer.
            return
        case .noneInReach(let considered):
            try await escalate(
                order,
                reason: "none of \(considered) free riders is within \(Int(settings.ranking.maxRoadSeconds)) s "
                    + "(\(measure))", considered: candidates.filter { $0.roadSeconds != nil })
        case .ranked(let ranked):
            for (position, candidate) in ranked.enumerated() {
                var details = [
                    "round": "\(rounds + 1)",
                    "reason": reason(for: candidate, among: ranked, position: position, measure: measure),
                    "considered": DispatchRanking.considered(ranked),
                    "roadSeconds": candidate.roadSeconds.map { "\(Int($0.rounded()))" } ?? "",
                ]
                if let readyIn {
                    details["readyInSeconds"] = "\(Int(readyIn.rounded()))"
                    details["reason"]! +=
                        "; sent ahead: the vendor expects the order ready in \(Int(readyIn.rounded())) s"
                }
                let plan = plans[candidate.riderId]
                if let plan {
                    details["reason"] = tripReason(plan, for: order) + (readyIn == nil ? "" : "; sent ahead")
                    details["tripStops"] = plan.stops.map(\.token).joined(separator: ",")
                }
                let offer = try await repository.makeAutomaticOffer(
                    orderId: order.id, riderId: candidate.riderId, ttl: offerTTL, tripStops: plan?.stops,
                    details: details, now: now)
                if let offer {
                    scheduleLapse(of: offer)
                    return
                }
                // That rider was taken (or the order was) meanwhile; the order's state is checked again.
                guard
                    try await !repository.ordersAwaitingDispatch(
                        orderId: order.id, vendors: nil, now: now, lead: settings.ranking.maxRoadSeconds, limit: 1
                    ).isEmpty
                else { return }
            }
        }
    }

    /// Road seconds from each free rider to the store from one travel matrix, each timed by the rider's vehicle (a
    /// bicycle no faster than its own speed: `RiderTravelTime`); riders who could not reach it within the limit even
    /// in a straight line at motorway speed are left out of the matrix. Without a road map, the straight line at a
    /// city speed stands in.
    private func roadTimes(_ free: [FreeRider], to store: GeoPoint) -> ([DispatchCandidate], String) {
        let reach = settings.ranking.maxRoadSeconds * 36
        let near = free.filter { ($0.position?.distanceM(to: store) ?? .infinity) <= reach }
        var seconds: [UUID: Double] = [:]
        var measure = "by road"
        if !near.isEmpty {
            if let table = try? navigator.table(from: near.map { $0.position! }, to: [store], profile: nil) {
                for (index, rider) in near.enumerated() {
                    seconds[rider.riderId] = RiderTravelTime.seconds(
                        ofCell: table.durationsS[index][0], distanceM: table.distancesM[index][0],
                        vehicle: rider.vehicle)
                }
            } else {
                measure = "in a straight line at 15 km/h: no road map"
                for rider in near {
                    let metres = rider.position!.distanceM(to: store)
                    seconds[rider.riderId] = RiderTravelTime.seconds(
                        roadSeconds: metres / (15 / 3.6), distanceM: metres, vehicle: rider.vehicle)
                }
            }
        }
        return (
            free.map {
                DispatchCandidate(riderId: $0.riderId, roadSeconds: seconds[$0.riderId], freeSince: $0.freeSince)
            },
            measure
        )
    }

    private func tripPlans(for order: Order, among riders: [TripRider], now: Date) -> [UUID: TripPlanner.Plan] {
        guard let batching = settings.batching, !riders.isEmpty else { return [:] }
        return TripCandidates(
            navigator: navigator, settings: batching, reachMetres: settings.ranking.maxRoadSeconds * 36
        ).plans(for: order, among: riders, now: now)
    }

    private func tripReason(_ plan: TripPlanner.Plan, for order: Order) -> String {
        let others = plan.delaySeconds.count
        return "adds the order to a rider's trip of \(others) order(s): at the store in "
            + "\(Int(plan.newStoreArrivalSeconds.rounded())) s by road, customers already on the trip reached at most "
            + "\(Int(plan.largestDelaySeconds.rounded())) s later (limit \(Int(settings.batching?.maxDelaySeconds ?? 0)) s)"
    }

    private func reason(
        for chosen: DispatchCandidate, among ranked: [DispatchCandidate], position: Int, measure: String
    ) -> String {
        let time = chosen.roadSeconds.map { "\(Int($0.rounded())) s \(measure)" } ?? "no time"
        let quickest = ranked[0].roadSeconds ?? 0
        let tied = ranked.filter { ($0.roadSeconds ?? .infinity) <= quickest + settings.ranking.tieSeconds }.count
        var words = "quickest free rider to the store (\(time))"
        if tied > 1 && position == 0 {
            words += "; waited longest of \(tied) within \(Int(settings.ranking.tieSeconds)) s of each other"
        }
        if position > 0 { words += "; \(position) quicker rider(s) were taken meanwhile" }
        return words
    }

    private func escalate(_ order: Order, reason: String, considered: [DispatchCandidate]) async throws {
        var details = ["reason": reason]
        if !considered.isEmpty { details["considered"] = DispatchRanking.considered(considered) }
        if try await repository.escalateDispatch(orderId: order.id, details: details, now: clock.now()) {
            logger.info(
                "order handed to dispatchers", metadata: ["order_id": "\(order.id.lowercased)", "reason": "\(reason)"])
        }
    }

    /// Moves on as soon as the offer lapses unanswered, rather than at the next sweep.
    private func scheduleLapse(of offer: Offer) {
        let wait = max(0, offer.expiresAt.timeIntervalSince(clock.now())) + 0.05
        Task { [weak self] in
            try? await Task.sleep(for: .seconds(wait))
            self?.orderNeedsRider(offer.orderId)
        }
    }
}
