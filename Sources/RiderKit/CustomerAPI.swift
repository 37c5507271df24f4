import Foundation

/// A typed client for a customer's calls about one of their orders.
public struct CustomerAPI: Sendable {
    let connection: APIConnection

    public init(
        baseURL: String, token: @escaping @Sendable () async throws -> String,
        transport: any RiderTransport = HTTPRiderTransport(), timeout: Duration = .seconds(10)
    ) {
        connection = APIConnection(baseURL: baseURL, token: token, transport: transport, timeout: timeout)
    }

    /// The code the customer reads to the rider at the door (nil for an order proved another way).
    public func deliveryCode(orderId: String) async throws -> String? {
        let view: CustomerOrder = try await connection.call(.GET, "/api/v1/customer/orders/\(orderId)")
        return view.deliveryOtp
    }

    /// A link to the order's tracking page, for someone without the app.
    public func trackingLink(orderId: String) async throws -> String {
        let link: TrackingLink = try await connection.call(.POST, "/api/v1/orders/\(orderId)/tracking-links")
        return link.url
    }

    private struct CustomerOrder: Decodable { var deliveryOtp: String? }
    private struct TrackingLink: Decodable { var url: String }
}
