import Foundation
import Testing

@testable import LogisticsCore

/// Batching's insertion: where a new order's store and customer go in a rider's trip, within the delay limit.
@Suite("Trip planning for batched orders")
struct TripPlannerTests {
    // Places on a line, one minute apart per unit: 0 rider, 1 first store, 2 first customer, then the new order's.
    static func line(_ positions: [Double]) -> (Int, Int) -> Double? {
        { from, to in abs(positions[from] - positions[to]) * 60 }
    }

    let first = UUID()
    let second = UUID()

    func places(newStore: Int = 3, newCustomer: Int = 4, readyIn: Double = 0) -> [TripStop: TripPlanner.Place] {
        [
            TripStop(orderId: first, kind: .store): .init(index: 1),
            TripStop(orderId: first, kind: .customer): .init(index: 2),
            TripStop(orderId: second, kind: .store): .init(index: newStore, readyInSeconds: readyIn),
            TripStop(orderId: second, kind: .customer): .init(index: newCustomer),
        ]
    }

    var current: [TripStop] { [TripStop(orderId: first, kind: .store), TripStop(orderId: first, kind: .customer)] }

    @Test("the same store, a customer beyond the first: both picked up, the first customer first")
    func sameStore() throws {
        // Rider at 0, store at 5, first customer at 8, the new customer at 10.
        let travel = Self.line([0, 5, 8, 5, 10])
        let settings = TripPlanner.Settings(maxDelaySeconds: 300, storeSeconds: 60, customerSeconds: 120)
        let plan = try #require(
            TripPlanner.plan(
                current: current, newOrder: second, places: places(), start: 0, travel: travel, settings: settings))
        #expect(
            plan.stops == [
                TripStop(orderId: first, kind: .store), TripStop(orderId: second, kind: .store),
                TripStop(orderId: first, kind: .customer), TripStop(orderId: second, kind: .customer),
            ])
        // Five minutes to the store, a minute per pickup, three minutes on: the first customer waits one more minute.
        #expect(plan.newStoreArrivalSeconds == 360)
        #expect(plan.customerArrivalSeconds[first] == Double(300 + 120 + 180))
        #expect(plan.delaySeconds[first] == Double(60))
        #expect(plan.customerArrivalSeconds[second] == Double(600 + 120 + 120))
    }

    @Test("a delay past the limit, a missing road, or a store off the way: no plan")
    func refused() {
        let travel = Self.line([0, 5, 8, 5, 10])
        let tight = TripPlanner.Settings(maxDelaySeconds: 59, storeSeconds: 60, customerSeconds: 120)
        #expect(
            TripPlanner.plan(
                current: current, newOrder: second, places: places(), start: 0, travel: travel, settings: tight) == nil)
        let noRoad: (Int, Int) -> Double? = { from, to in from == 4 || to == 4 ? nil : travel(from, to) }
        #expect(
            TripPlanner.plan(
                current: current, newOrder: second, places: places(), start: 0, travel: noRoad,
                settings: .init()) == nil)
        // A new store far off the way: every insertion before the first drop-off delays it by more than five minutes
        // (after it, the order would be a second trip, not one on the way).
        let farStore = Self.line([0, 5, 8, 30, 10])
        #expect(
            TripPlanner.plan(
                current: current, newOrder: second, places: places(), start: 0, travel: farStore, settings: .init())
                == nil)
    }

    @Test("goods not ready yet are waited for; a drop-off on the way is made first when that ends the trip sooner")
    func waitsAndOrders() throws {
        // New store next to the first one, ready in 30 s after the rider gets there; new customer on the way (at 6).
        let travel = Self.line([0, 5, 8, 5, 6])
        let plan = try #require(
            TripPlanner.plan(
                current: current, newOrder: second, places: places(readyIn: 330), start: 0, travel: travel,
                settings: .init(maxDelaySeconds: 600)))
        #expect(
            plan.stops == [
                TripStop(orderId: first, kind: .store), TripStop(orderId: second, kind: .store),
                TripStop(orderId: second, kind: .customer), TripStop(orderId: first, kind: .customer),
            ])
        // At the first store at 300, leave at 360; the new goods are ready at 330, so no wait; leave at 420.
        #expect(plan.newStoreArrivalSeconds == 360)
        #expect(plan.customerArrivalSeconds[second] == Double(480))
        #expect(plan.customerArrivalSeconds[first] == Double(480 + 120 + 120))
        #expect(plan.largestDelaySeconds == 720 - 540)
    }

    @Test("stop tokens survive the round trip; anything else is not a stop")
    func tokens() {
        let stop = TripStop(orderId: first, kind: .customer)
        #expect(TripStop(token: stop.token) == stop)
        #expect(TripStop(token: "DEPOT:\(first.lowercased)") == nil)
        #expect(TripStop(token: "STORE:not-an-id") == nil)
    }
}
