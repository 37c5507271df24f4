import AsyncHTTPClient
import CitySimulation
import Foundation
import LogisticsCore
import RiderKit
import Synchronization

/// The dispatcher's and customers' side of the simulation: creates orders, offers them by hand (or leaves that to
/// the server's automatic dispatch), and reads the customer's delivery code — through the same API a dispatcher
/// console and a customer app use.
struct SimulationOffice: Sendable {
    let base: String
    let http: HTTPClient
    let tokens: @Sendable (_ subject: UUID, _ role: Role) async throws -> String
    /// The server offers ready orders itself (`LOGISTICS_AUTO_DISPATCH`): the office only creates them.
    var automatic = false
    /// Customers by order, for whichever rider ends up with the order.
    private let customers = Customers()

    private final class Customers: Sendable {
        let byOrder = Mutex<[String: UUID]>([:])
    }

    struct PlacedOrder: Sendable {
        var orderId: String
        var customerId: UUID
    }

    static let dispatcherId = UUID(uuidString: "00000000-0000-4000-8000-00000000d15c")!
    /// The vendor the simulated stores order as when the server dispatches: the demo switches automatic dispatch on
    /// for this vendor, and leaves the orders it places for its person rider to be offered by hand.
    static let vendorId = UUID(uuidString: "00000000-0000-4000-8000-00000000d15e")!

    /// An order from `store` to `home`, ready; offered to the rider by hand unless the server dispatches itself.
    func orderFor(
        riderId: UUID, store: (name: String, location: GeoPoint), home: (name: String, location: GeoPoint)
    ) async throws -> PlacedOrder {
        let placer = automatic ? Self.vendorId : Self.dispatcherId
        let placerRole: Role = automatic ? .vendor : .dispatcher
        let tokens = self.tokens
        let office = OfficeAPI(
            baseURL: base, token: { try await tokens(placer, placerRole) }, transport: HTTPRiderTransport(http: http))
        let customerId = UUID()
        let orderId = try await office.placeOrder(
            ref: "SIM-\(customerId.uuidString.prefix(6))",
            from: VendorStop(
                name: "Simulated store, \(store.name)", address: "\(store.name), Monaco", location: store.location),
            to: CustomerContact(
                id: customerId, name: "Simulated customer", phone: "+377 93 15 00 00",
                address: "\(home.name), Monaco", location: home.location))
        customers.byOrder.withLock { $0[orderId] = customerId }
        try await office.markReady(orderId: orderId)
        if !automatic { try await office.offer(orderId: orderId, to: [riderId]) }
        return PlacedOrder(orderId: orderId, customerId: customerId)
    }

    /// The order as the office placed it; nil for an order some other client created.
    func placed(_ orderId: String) -> PlacedOrder? {
        customers.byOrder.withLock { $0[orderId] }.map { PlacedOrder(orderId: orderId, customerId: $0) }
    }

    /// What the customer reads to the rider at the door.
    func deliveryCode(_ order: PlacedOrder) async throws -> String {
        let tokens = self.tokens
        let customer = CustomerAPI(
            baseURL: base, token: { try await tokens(order.customerId, .customer) },
            transport: HTTPRiderTransport(http: http))
        guard let code = try await customer.deliveryCode(orderId: order.orderId) else {
            throw SimulationError("order \(order.orderId) has no code")
        }
        return code
    }
}
