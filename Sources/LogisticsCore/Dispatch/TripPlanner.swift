import Foundation

/// One stop of a rider's trip: an order's store (pickup) or its customer (drop-off).
public struct TripStop: Sendable, Equatable, Hashable {
    public var orderId: UUID
    public var kind: StopKind

    public init(orderId: UUID, kind: StopKind) {
        self.orderId = orderId
        self.kind = kind
    }

    /// How an offer stores its planned sequence: `STORE:<order id>`.
    public var token: String { "\(kind.rawValue):\(orderId.lowercased)" }

    public init?(token: String) {
        let parts = token.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let kind = StopKind(rawValue: String(parts[0])),
            let orderId = UUID(uuidString: String(parts[1]))
        else { return nil }
        self.init(orderId: orderId, kind: kind)
    }
}

/// Batching: where a new order's two stops go in a rider's trip. The new store and customer are inserted into the
/// trip's remaining sequence at the places that end the trip soonest (cheapest insertion: the stops already
/// promised keep their order, so nobody's plan is reshuffled), the store before the next drop-off, provided no
/// customer already on the trip is reached more than `maxDelaySeconds` later than without the new order. Times
/// count from now at the rider's position, with the time spent at each stop and any wait for goods not ready yet.
public enum TripPlanner {
    public struct Settings: Sendable, Equatable {
        /// The most a customer already on the trip may be delayed by the new order.
        public var maxDelaySeconds: Double
        /// Time at a store per order picked up, and at a customer's door per order handed over.
        public var storeSeconds: Double
        public var customerSeconds: Double

        public init(maxDelaySeconds: Double = 300, storeSeconds: Double = 60, customerSeconds: Double = 120) {
            self.maxDelaySeconds = maxDelaySeconds
            self.storeSeconds = storeSeconds
            self.customerSeconds = customerSeconds
        }
    }

    /// Where a stop is, as an index into the travel table, and for stores how long until the goods are ready.
    public struct Place: Sendable, Equatable {
        public var index: Int
        public var readyInSeconds: Double

        public init(index: Int, readyInSeconds: Double = 0) {
            self.index = index
            self.readyInSeconds = readyInSeconds
        }
    }

    public struct Plan: Sendable, Equatable {
        /// The whole remaining trip, in order, with the new order's stops in it.
        public var stops: [TripStop]
        /// Seconds from now until the rider reaches the new order's store.
        public var newStoreArrivalSeconds: Double
        /// Seconds from now until the rider reaches each customer (by order id).
        public var customerArrivalSeconds: [UUID: Double]
        /// How much later each customer already on the trip is reached than without the new order.
        public var delaySeconds: [UUID: Double]
        /// Seconds until the trip's last stop is left.
        public var finishSeconds: Double

        public var largestDelaySeconds: Double { delaySeconds.values.max() ?? 0 }
    }

    /// The best plan adding `newOrder` to the trip whose remaining stops are `current` (in order), or nil when no
    /// insertion keeps every customer's delay within the limit or the table has no road between needed places.
    /// `places` tells where each stop is; `travel(from, to)` is the road time between two table indices.
    public static func plan(
        current: [TripStop], newOrder: UUID, places: [TripStop: Place], start: Int,
        travel: (Int, Int) -> Double?, settings: Settings
    ) -> Plan? {
        guard let before = simulate(current, places: places, start: start, travel: travel, settings: settings) else {
            return nil
        }
        let store = TripStop(orderId: newOrder, kind: .store)
        let customer = TripStop(orderId: newOrder, kind: .customer)
        var best: Plan?
        // The new store is visited on the way, before the next drop-off: an order picked up only after the rider's
        // deliveries would be a second trip, which a free rider may serve sooner. Later places are tried first, so
        // a tie keeps the trip's own sequence ahead of the newcomer.
        let lastStoreSlot = current.firstIndex { $0.kind == .customer } ?? current.count
        for storeAt in (0...lastStoreSlot).reversed() {
            for customerAt in ((storeAt + 1)...(current.count + 1)).reversed() {
                var stops = current
                stops.insert(store, at: storeAt)
                stops.insert(customer, at: customerAt)
                guard let after = simulate(stops, places: places, start: start, travel: travel, settings: settings)
                else { continue }
                var delays: [UUID: Double] = [:]
                for (orderId, arrival) in before.customers {
                    delays[orderId] = max(0, after.customers[orderId]! - arrival)
                }
                guard delays.values.allSatisfy({ $0 <= settings.maxDelaySeconds }) else { continue }
                let plan = Plan(
                    stops: stops, newStoreArrivalSeconds: after.stores[newOrder]!,
                    customerArrivalSeconds: after.customers,
                    delaySeconds: delays, finishSeconds: after.finish)
                if best.map({ plan.finishSeconds < $0.finishSeconds }) ?? true { best = plan }
            }
        }
        return best
    }

    private struct Timeline {
        var stores: [UUID: Double] = [:]
        var customers: [UUID: Double] = [:]
        var finish: Double = 0
    }

    private static func simulate(
        _ stops: [TripStop], places: [TripStop: Place], start: Int, travel: (Int, Int) -> Double?, settings: Settings
    ) -> Timeline? {
        var timeline = Timeline()
        var clock = 0.0
        var at = start
        for stop in stops {
            guard let place = places[stop], let leg = travel(at, place.index) else { return nil }
            clock += leg
            at = place.index
            switch stop.kind {
            case .store:
                timeline.stores[stop.orderId] = clock
                clock = max(clock, place.readyInSeconds) + settings.storeSeconds
            case .customer:
                timeline.customers[stop.orderId] = clock
                clock += settings.customerSeconds
            }
        }
        timeline.finish = clock
        return timeline
    }
}
