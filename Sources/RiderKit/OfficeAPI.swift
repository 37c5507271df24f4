import Foundation
import LogisticsCore

/// A typed client for the calls a dispatcher's console or a store makes: orders placed, made ready, offered to
/// riders and cancelled. The token is a dispatcher's, or a store's for its own orders.
public struct OfficeAPI: Sendable {
    let connection: APIConnection

    public init(
        baseURL: String, token: @escaping @Sendable () async throws -> String,
        transport: any RiderTransport = HTTPRiderTransport(), timeout: Duration = .seconds(10)
    ) {
        connection = APIConnection(baseURL: baseURL, token: token, transport: transport, timeout: timeout)
    }

    /// Places an order proved with the customer's code; returns its id.
    public func placeOrder(ref: String, from vendor: VendorStop, to customer: CustomerContact) async throws -> String {
        let placed: PlacedOrder = try await connection.call(
            .POST, "/api/v1/orders",
            json: [
                "externalRef": ref, "podType": "OTP",
                "vendor": [
                    "name": vendor.name, "address": vendor.address,
                    "location": ["lat": vendor.location.lat, "lon": vendor.location.lon],
                ],
                "customer": [
                    "id": customer.id.lowercased, "name": customer.name, "phone": customer.phone,
                    "address": customer.address,
                    "location": ["lat": customer.location.lat, "lon": customer.location.lon],
                ],
            ])
        return placed.orderId
    }

    public func markReady(orderId: String) async throws {
        let _: NoContent = try await connection.call(.POST, "/api/v1/orders/\(orderId)/ready")
    }

    /// Offers the order to these riders; returns the offers' ids in the same order.
    @discardableResult
    public func offer(orderId: String, to riderIds: [UUID]) async throws -> [String] {
        let round: OfferRound = try await connection.call(
            .POST, "/api/v1/orders/\(orderId)/offers", json: ["riderIds": riderIds.map(\.lowercased)])
        return round.offers.map(\.offerId)
    }

    public func cancel(orderId: String, reason: String) async throws {
        let _: NoContent = try await connection.call(
            .POST, "/api/v1/orders/\(orderId)/cancel", json: ["reason": reason])
    }

    private struct PlacedOrder: Decodable { var orderId: String }
    private struct OfferRound: Decodable {
        struct Offer: Decodable { var offerId: String }
        var offers: [Offer]
    }
}
