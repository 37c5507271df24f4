import CitySimulation
import Foundation
import LogisticsCore
import LogisticsServer
import ServiceLifecycle

/// The demo's rider left for a person (the walkthrough prints their rider app link): whenever that rider is online, free and
/// without an open offer, the simulation's office offers them a short trip from a store near where they are (by hand:
/// a browser without GPS gives automatic dispatch nothing to rank them by) — so a newcomer can do a whole delivery in
/// a browser. Each offer's delivery code is printed, also of the simulated stores' orders automatic dispatch sends
/// them.
struct DemoAppRiderService: Service {
    let services: ServerComponents
    let local: DemoLocal
    let ports: AsyncStream<Int>

    static let checkEvery: Duration = .seconds(2)

    func run() async throws {
        guard let tokens = services.tokens, let port = await ports.first(where: { _ in true }) else {
            try? await gracefulShutdown()
            return
        }
        let rider = DemoFleet.appRider
        let office = SimulationOffice(base: local.base(port), http: local.http) {
            subject, role in
            try await tokens.token(subject: subject, role: role, name: nil)
        }
        await cancelWhenGracefulShutdown {
            var announced: Set<UUID> = []
            while !Task.isCancelled {
                do {
                    try await offerIfFree(rider, office: office, announced: &announced)
                } catch {
                    if Task.isCancelled { return }
                    Console.line("demo: could not offer \(rider.name ?? "the app rider") an order: \(error)")
                }
                try? await Task.sleep(for: Self.checkEvery)
            }
        }
    }

    /// Places an order near the rider when they are free with nothing offered; tells the customer's delivery code
    /// of each offer they get (the one placed for them, or another order automatic dispatch found them best for).
    private func offerIfFree(_ rider: Actor, office: SimulationOffice, announced: inout Set<UUID>) async throws {
        guard let state = try await services.repository.rider(id: rider.id), state.availability == .online,
            state.activeTaskId == nil
        else { return }
        if let (offer, order) = try await services.repository.openOffers(riderId: rider.id, now: services.clock.now())
            .first
        {
            guard announced.insert(offer.id).inserted else { return }
            let code = try await office.deliveryCode(
                .init(orderId: order.id.lowercased, customerId: order.customer.id))
            Console.line(
                "  \(rider.name ?? "The app rider") (you) is offered order \(order.externalRef ?? order.id.lowercased) "
                    + "from \(order.vendor.name) to \(order.customer.address): DELIVERY CODE \(code) (the customer "
                    + "gives it at the door)")
            return
        }
        let near = try await services.repository.lastPosition(riderId: rider.id)?.0 ?? DemoFleet.store.location
        let trip = MonacoPlaces.shortTrip(near: near)
        _ = try await office.orderFor(riderId: rider.id, store: trip.store, home: trip.home)
    }
}
