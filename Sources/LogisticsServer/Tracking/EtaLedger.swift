import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import Prometheus
import RoadRouting
import Synchronization

/// Keeps the ETAs a customer is promised on the way, next to the actual arrival: one at pickup, then one per order
/// at most every `spacing` seconds of the rider's fixes, each from the fix's position to the door, timed from the
/// fix, and by the rider's vehicle (`RiderTravelTime`: a bicycle is no faster than its own speed). At the door each is scored into `eta_absolute_error_seconds{minutes_to_go}`; `logistics-bench eta` reads
/// them back.
final class EtaLedger: Sendable {
    let repository: any EtaRepository
    let navigator: Navigator
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    let spacing: TimeInterval
    /// Read when the watch of a rider with orders in transit is (re)made, not per fix: the cache asks the database
    /// once per rider in `RiderVehicles.memory` (and pickup has usually asked already).
    let vehicles: RiderVehicles?
    /// How often a rider's orders in transit are asked of the database: the pickup may have been tapped on
    /// another instance. Each rider's next ask is drawn from half to the whole of it: riders who came online
    /// together (a shift start, a reconnect after a network blip, a benchmark) would otherwise all ask in the same
    /// second, and thousands of riders' queries at once stalled PostgreSQL's pool for seconds.
    let refresh: TimeInterval = 30

    private struct Watch {
        var orders: [(orderId: UUID, destination: GeoPoint)]
        var vehicle: Vehicle?
        var checkAgainAt: Date
        var lastPredictionAt: [UUID: Date] = [:]

        /// The order's last ETA is `spacing` seconds older than a fix recorded at `recordedAt`, or it has none.
        func isDue(_ orderId: UUID, at recordedAt: Date, spacing: TimeInterval) -> Bool {
            guard let last = lastPredictionAt[orderId] else { return true }
            return recordedAt.timeIntervalSince(last) >= spacing
        }
    }

    private let watches = Mutex<[UUID: Watch]>([:])

    private struct Lookup: Sendable {
        var riderId: UUID
        var done: CheckedContinuation<[(orderId: UUID, destination: GeoPoint)], any Error>
    }

    /// Riders' orders in transit are asked for together: every rider's first fix asks, and thousands of riders
    /// coming online in the same second were a query each, which held up the acknowledgements and the server's CPU
    /// at the start of every run. One query per 5 ms now answers every rider who asked meanwhile.
    private let lookups: BatchQueue<Lookup>

    init(
        repository: any EtaRepository, navigator: Navigator, registry: PrometheusCollectorRegistry, logger: Logger,
        vehicles: RiderVehicles? = nil, spacing: TimeInterval = 10
    ) {
        self.repository = repository
        lookups = BatchQueue(interval: .milliseconds(5)) { batch in
            do {
                let orders = try await repository.ordersInTransit(riderIds: Array(Set(batch.map(\.riderId))))
                for lookup in batch { lookup.done.resume(returning: orders[lookup.riderId] ?? []) }
            } catch {
                for lookup in batch { lookup.done.resume(throwing: error) }
            }
        }
        self.navigator = navigator
        self.registry = registry
        self.logger = logger
        self.spacing = spacing
        self.vehicles = vehicles
    }

    /// Forgets the watches of riders not heard from for `idle` after their next check was due: one per rider ever
    /// seen used to stay. A rider who comes back is asked about again, as on a first fix.
    @discardableResult
    func forgetIdleRiders(now: Date, idle: TimeInterval = 600) -> Int {
        watches.withLock { watches in
            let before = watches.count
            watches = watches.filter { now.timeIntervalSince($0.value.checkAgainAt) < idle }
            return before - watches.count
        }
    }

    var watchedRiders: Int { watches.withLock { $0.count } }

    /// Minutes to go, as the histogram's label: short and long rides are told apart.
    static func minutesToGo(_ seconds: Double) -> String {
        switch seconds / 60 {
        case ..<2: "0-2"
        case ..<5: "2-5"
        case ..<10: "5-10"
        case ..<20: "10-20"
        default: "20+"
        }
    }

    /// The ETA promised when the rider picks the order up, from where the tap was made.
    func pickedUp(orderId: UUID, destination: GeoPoint, at position: GeoPoint, occurredAt: Date, riderId: UUID) async {
        // The next fix asks the database again, and finds this order among the rider's.
        watches.withLock { $0[riderId] = nil }
        let vehicle = await vehicles?.vehicle(of: riderId)
        guard
            let prediction = await predict(
                orderId: orderId, from: position, to: destination, at: occurredAt, vehicle: vehicle)
        else {
            return
        }
        await keep([prediction])
        watches.withLock { $0[riderId]?.lastPredictionAt[orderId] = occurredAt }
    }

    /// Whether `observe` would have nothing to do for these fixes: the rider's orders are known and fresh, and no
    /// order is due an ETA (none is without a map). Most fixes are like this, and a rider's socket then answers
    /// without starting a task.
    func hasNothingToDo(riderId: UUID, fixes: [LocationFix], now: Date) -> Bool {
        guard let newest = fixes.max(by: { $0.recordedAt < $1.recordedAt }) else { return true }
        return watches.withLock { watches in
            guard let watch = watches[riderId], now < watch.checkAgainAt else { return false }
            guard navigator.hasMap else { return true }
            return !watch.orders.contains { watch.isDue($0.orderId, at: newest.recordedAt, spacing: spacing) }
        }
    }

    /// New fixes from a rider: an ETA for each order in transit whose last one is `spacing` seconds older.
    func observe(riderId: UUID, fixes: [LocationFix], now: Date) async {
        guard let newest = fixes.max(by: { $0.recordedAt < $1.recordedAt }) else { return }
        let known = watches.withLock { $0[riderId] }
        var watch: Watch
        if let known, now < known.checkAgainAt {
            watch = known
        } else {
            do {
                let orders = try await withCheckedThrowingContinuation { done in
                    lookups.submit([Lookup(riderId: riderId, done: done)])
                }
                watch = Watch(
                    // Only a rider carrying orders needs timing; the cache reads their record once in minutes.
                    orders: orders, vehicle: orders.isEmpty ? nil : await vehicles?.vehicle(of: riderId),
                    checkAgainAt: now.addingTimeInterval(refresh * .random(in: 0.5...1)),
                    lastPredictionAt: known?.lastPredictionAt ?? [:])
                watch.lastPredictionAt = watch.lastPredictionAt.filter { id, _ in orders.contains { $0.orderId == id } }
            } catch {
                logger.warning("orders in transit could not be read for ETAs", metadata: ["error": "\(error)"])
                return
            }
        }
        var predictions: [EtaPrediction] = []
        for order in watch.orders {
            guard watch.isDue(order.orderId, at: newest.recordedAt, spacing: spacing) else { continue }
            guard
                let prediction = await predict(
                    orderId: order.orderId, from: newest.point, to: order.destination, at: newest.recordedAt,
                    vehicle: watch.vehicle)
            else { continue }
            predictions.append(prediction)
            watch.lastPredictionAt[order.orderId] = newest.recordedAt
        }
        watches.withLock { [watch] in $0[riderId] = watch }
        await keep(predictions)
    }

    /// The rider is at the door: every ETA promised for the order is scored against now.
    func arrived(orderId: UUID, at arrival: Date) async {
        do {
            let settled = try await repository.settleEtaPredictions(orderId: orderId, arrivedAt: arrival)
            for prediction in settled {
                let error = abs(prediction.errorSeconds ?? 0)
                registry.durationHistogram(
                    .etaAbsoluteError,
                    labels: [("minutes_to_go", Self.minutesToGo(arrival.timeIntervalSince(prediction.predictedAt)))],
                    buckets: [.seconds(15), .seconds(30), .seconds(60), .seconds(120), .seconds(300), .seconds(600)]
                ).record(.milliseconds(Int64((error * 1000).rounded())))
            }
        } catch {
            logger.warning(
                "ETAs could not be scored", metadata: ["order": "\(orderId.lowercased)", "error": "\(error)"])
        }
    }

    private func predict(orderId: UUID, from: GeoPoint, to: GeoPoint, at date: Date, vehicle: Vehicle?) async
        -> EtaPrediction?
    {
        // Without a map or a route there is no ETA to keep, as the customer sees none. Without a map the ledger
        // does not ask: each order's every attempt logged "navigation provider failed" (about 80 lines a second with
        // 2,000 orders in transit, in the tracking bench).
        guard navigator.hasMap,
            let route = try? await navigator.route(RouteRequest(from: from, to: to), profile: nil, now: date)
        else {
            return nil
        }
        return EtaPrediction(
            orderId: orderId, predictedAt: date,
            remainingSeconds: RiderTravelTime.seconds(
                roadSeconds: route.durationS, distanceM: route.distanceM, vehicle: vehicle),
            remainingMetres: route.distanceM)
    }

    private func keep(_ predictions: [EtaPrediction]) async {
        do {
            try await repository.recordEtaPredictions(predictions)
        } catch {
            logger.warning("ETAs could not be kept", metadata: ["error": "\(error)"])
        }
    }
}
