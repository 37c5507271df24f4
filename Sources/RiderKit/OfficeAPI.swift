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

    /// Places an order proved with the customer's code; returns its id. `preparationMinutes`: when the store
    /// expects it ready, for dispatch to time the rider's arrival.
    /// `storeId` names a registered store (its staff then see the order, and its registered place is the pickup);
    /// without it, `vendor` is the pickup place.
    public func placeOrder(
        ref: String, from vendor: VendorStop, storeId: UUID? = nil, to customer: CustomerContact,
        preparationMinutes: Int? = nil
    ) async throws -> String {
        var contact: [String: Any] = [
            "id": customer.id.lowercased, "name": customer.name, "phone": customer.phone,
            "address": customer.address,
            "location": ["lat": customer.location.lat, "lon": customer.location.lon],
        ]
        if let locale = customer.locale { contact["locale"] = locale }
        if let notify = customer.notify { contact["notify"] = notify.map(\.rawValue) }
        var order: [String: Any] = [
            "externalRef": ref, "podType": "OTP",
            "vendor": [
                "name": vendor.name, "address": vendor.address,
                "location": ["lat": vendor.location.lat, "lon": vendor.location.lon],
            ],
            "customer": contact,
        ]
        if let storeId {
            order["vendorId"] = storeId.lowercased
            order["vendor"] = nil
        }
        if let preparationMinutes { order["preparationMinutes"] = preparationMinutes }
        let placed: PlacedOrder = try await connection.call(.POST, "/api/v1/orders", json: order)
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

    /// Offers the order to the `count` nearest free riders by road, as the dispatcher map's "Offer" button does.
    @discardableResult
    public func offerToNearest(orderId: String, count: Int) async throws -> [String] {
        let round: OfferRound = try await connection.call(
            .POST, "/api/v1/orders/\(orderId)/offers", json: ["strategy": "nearest", "count": count])
        return round.offers.map(\.offerId)
    }

    /// The order's event log, oldest first.
    public func events(orderId: String) async throws -> [OrderEvent] {
        let log: EventLog = try await connection.call(.GET, "/api/v1/orders/\(orderId)/events")
        return log.events
    }

    public func cancel(orderId: String, reason: String) async throws {
        let _: NoContent = try await connection.call(
            .POST, "/api/v1/orders/\(orderId)/cancel", json: ["reason": reason])
    }

    private struct PlacedOrder: Decodable { var orderId: String }
    private struct EventLog: Decodable { var events: [OrderEvent] }
    private struct OfferRound: Decodable {
        struct Offer: Decodable { var offerId: String }
        var offers: [Offer]
    }
}

/// One entry of an order's event log, as a dispatcher's client reads it.
public struct OrderEvent: Decodable, Sendable, Equatable {
    public var seq: Int
    public var type: String
    public var status: String?
    /// The event's details as text; an event whose details are not all text has none here.
    public var details: [String: String]

    private enum CodingKeys: String, CodingKey { case seq, type, status, details }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int.self, forKey: .seq)
        type = try container.decode(String.self, forKey: .type)
        status = try container.decodeIfPresent(String.self, forKey: .status)
        details = (try? container.decodeIfPresent([String: String].self, forKey: .details)) ?? [:]
    }
}
