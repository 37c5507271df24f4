import Foundation
import LogisticsCore
import RoadRouting
import Synchronization

/// The road distances of a rider's open offers (RDR-012), asked of the router for every offer at once and waited for
/// no longer than `budget`: an offer's seconds are running, so a slow or unreachable router leaves the distances
/// out (the app shows the straight line, marked as approximate) rather than holding back the offers.
struct OfferDistances: Sendable {
    let navigator: Navigator
    var budget: Duration = .milliseconds(800)

    func of(_ open: [(Offer, Order)], from here: GeoPoint?, now: Date) async -> [UUID: OfferRepresentation.Distances] {
        guard !open.isEmpty else { return [:] }
        let navigator = navigator
        let work = Task {
            await withTaskGroup(of: (UUID, OfferRepresentation.Distances?).self) { group in
                for (offer, order) in open {
                    group.addTask { (offer.id, await Self.distances(navigator, from: here, order: order, now: now)) }
                }
                var found: [UUID: OfferRepresentation.Distances] = [:]
                for await (id, distances) in group { found[id] = distances }
                return found
            }
        }
        return await Self.first(of: work, within: budget) ?? [:]
    }

    private static func distances(_ navigator: Navigator, from here: GeoPoint?, order: Order, now: Date) async
        -> OfferRepresentation.Distances?
    {
        func road(_ from: GeoPoint, _ to: GeoPoint) async -> Double? {
            try? await navigator.route(RouteRequest(from: from, to: to), profile: nil, now: now).distanceM
        }
        async let toCustomer = road(order.vendor.location, order.customer.location)
        async let toStore: Double? = if let here { await road(here, order.vendor.location) } else { nil }
        let (customer, store) = await (toCustomer, toStore)
        guard customer != nil || store != nil else { return nil }
        return OfferRepresentation.Distances(toStoreM: store, storeToCustomerM: customer)
    }

    /// The work's result, or nil once `budget` has passed; the work then carries on unwatched (a router's request
    /// ends by its own timeout) rather than being waited for.
    private static func first<Value: Sendable>(of work: Task<Value, Never>, within budget: Duration) async -> Value? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let answer = FirstAnswer(continuation)
            Task { answer.give(await work.value) }
            Task {
                try? await Task.sleep(for: budget)
                answer.give(nil)
            }
        }
    }
}

/// A continuation resumed by whichever answer comes first; the later one is dropped.
private final class FirstAnswer<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value?, Never>?>

    init(_ continuation: CheckedContinuation<Value?, Never>) {
        self.continuation = Mutex(continuation)
    }

    func give(_ value: Value?) {
        continuation.withLock { waiting in
            waiting?.resume(returning: value)
            waiting = nil
        }
    }
}
