import Foundation
import LogisticsCore
import RiderKit

/// The dispatcher's and customers' side of the simulation: creates an order for a rider, offers it to them, and
/// reads the customer's delivery code — through the same API a dispatcher console and a customer app use.
struct SimulationOffice: Sendable {
    let client: RiderAPI
    let tokens: @Sendable (_ subject: UUID, _ role: Role) async throws -> String

    struct PlacedOrder: Sendable {
        var orderId: String
        var customerId: UUID
    }

    private struct Created: Decodable { var orderId: String }
    private struct CustomerView: Decodable { var deliveryOtp: String? }
    private struct Ignored: Decodable {}

    static let dispatcherId = UUID(uuidString: "00000000-0000-4000-8000-00000000d15c")!

    func orderFor(
        riderId: UUID, store: (name: String, location: GeoPoint), home: (name: String, location: GeoPoint)
    ) async throws -> PlacedOrder {
        let dispatcher = try await tokens(Self.dispatcherId, .dispatcher)
        let customerId = UUID()
        let created: Created = try await client.call(
            .POST, "/api/v1/orders", token: dispatcher,
            json: [
                "externalRef": "SIM-\(customerId.uuidString.prefix(6))", "podType": "OTP",
                "vendor": [
                    "name": "Simulated store, \(store.name)", "address": "\(store.name), Monaco",
                    "location": ["lat": store.location.lat, "lon": store.location.lon],
                ],
                "customer": [
                    "id": customerId.lowercased, "name": "Simulated customer", "phone": "+377 93 15 00 00",
                    "address": "\(home.name), Monaco",
                    "location": ["lat": home.location.lat, "lon": home.location.lon],
                ],
            ])
        let _: Ignored = try await client.call(.POST, "/api/v1/orders/\(created.orderId)/ready", token: dispatcher)
        let _: Ignored = try await client.call(
            .POST, "/api/v1/orders/\(created.orderId)/offers", token: dispatcher,
            json: ["riderIds": [riderId.lowercased]])
        return PlacedOrder(orderId: created.orderId, customerId: customerId)
    }

    /// What the customer reads to the rider at the door.
    func deliveryCode(_ order: PlacedOrder) async throws -> String {
        let customer = try await tokens(order.customerId, .customer)
        let view: CustomerView = try await client.call(
            .GET, "/api/v1/customer/orders/\(order.orderId)", token: customer)
        guard let code = view.deliveryOtp else { throw SimulationError("order \(order.orderId) has no code") }
        return code
    }
}
