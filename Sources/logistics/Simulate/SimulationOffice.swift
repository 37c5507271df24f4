import AsyncHTTPClient
import Foundation
import LogisticsCore

/// The dispatcher's and customers' side of the simulation: creates an order for a rider, offers it to them, and
/// reads the customer's delivery code — through the same API a dispatcher console and a customer app use.
struct SimulationOffice: Sendable {
    let client: BenchClient
    let tokens: @Sendable (_ subject: UUID, _ role: Role) async throws -> String

    struct PlacedOrder: Sendable {
        var orderId: String
        var customerId: UUID
    }

    static let dispatcherId = UUID(uuidString: "00000000-0000-4000-8000-00000000d15c")!

    func orderFor(
        riderId: UUID, store: (name: String, location: GeoPoint), home: (name: String, location: GeoPoint)
    ) async throws -> PlacedOrder {
        let dispatcher = try await tokens(Self.dispatcherId, .dispatcher)
        let customerId = UUID()
        let created = try await client.call(
            "create order", .POST, "/api/v1/orders", token: dispatcher,
            json: DeliveryLoad.order(
                ref: "SIM-\(customerId.uuidString.prefix(6))",
                from: VendorStop(
                    name: "Simulated store, \(store.name)", address: "\(store.name), Monaco", location: store.location),
                to: CustomerContact(
                    id: customerId, name: "Simulated customer", phone: "+377 93 15 00 00",
                    address: "\(home.name), Monaco", location: home.location)),
            expect: 201)
        guard let orderId = created["orderId"] as? String else { throw SimulationError("order created without an id") }
        try await client.call("ready", .POST, "/api/v1/orders/\(orderId)/ready", token: dispatcher)
        try await client.call(
            "offer", .POST, "/api/v1/orders/\(orderId)/offers", token: dispatcher,
            json: ["riderIds": [riderId.lowercased]], expect: 201)
        return PlacedOrder(orderId: orderId, customerId: customerId)
    }

    /// What the customer reads to the rider at the door.
    func deliveryCode(_ order: PlacedOrder) async throws -> String {
        let customer = try await tokens(order.customerId, .customer)
        let view = try await client.call(
            "customer view", .GET, "/api/v1/customer/orders/\(order.orderId)", token: customer)
        guard let code = view["deliveryOtp"] as? String else {
            throw SimulationError("order \(order.orderId) has no code")
        }
        return code
    }
}
