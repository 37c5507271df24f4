import Foundation
import LogisticsCore
import LogisticsServer
import ServiceLifecycle

/// The demo's rider left for a person (the walkthrough prints their rider app link): whenever that rider is online, free and
/// without an open offer, the simulation's office offers them a short trip from a store near where they are — so a
/// newcomer can do a whole delivery in a browser.
struct DemoAppRiderService: Service {
    let services: LogisticsServices
    let host: String
    let ports: AsyncStream<Int>

    static let checkEvery: Duration = .seconds(2)

    func run() async throws {
        guard let tokens = services.tokens, let port = await ports.first(where: { _ in true }) else {
            try? await gracefulShutdown()
            return
        }
        let base = "http://\(host):\(port)"
        let rider = DemoFleet.appRider
        let office = SimulationOffice(client: BenchClient(http: .shared, base: base, recorder: nil)) { subject, role in
            try await tokens.token(subject: subject, role: role, name: nil)
        }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await offerIfFree(rider, office: office)
                } catch {
                    if Task.isCancelled { return }
                    Console.line("demo: could not offer \(rider.name ?? "the app rider") an order: \(error)")
                }
                try? await Task.sleep(for: Self.checkEvery)
            }
        }
    }

    private func offerIfFree(_ rider: Actor, office: SimulationOffice) async throws {
        guard let state = try await services.repository.rider(id: rider.id), state.availability == .online,
            state.activeTaskId == nil,
            try await services.deliveries.openOffers(riderId: rider.id, now: services.clock.now()).isEmpty
        else { return }
        let near = try await services.locations.lastPosition(riderId: rider.id)?.0 ?? DemoFleet.store.location
        let trip = MonacoPlaces.shortTrip(near: near)
        let order = try await office.orderFor(riderId: rider.id, store: trip.store, home: trip.home)
        let code = try await office.deliveryCode(order)
        Console.line(
            "demo: \(rider.name ?? "the app rider") is offered an order from \(trip.store.name) to \(trip.home.name); "
                + "the customer's delivery code is \(code)")
    }
}
