import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `/api/v1/customer/orders/{orderId}`: the customer's view of their own order.
struct CustomerRoutes {
    let lookup: OrderLookup
    let riders: any RiderRepository
    let otp: DeliveryOTP
    let tracking: TrackingSnapshots

    func register(in routes: inout RouteTable) {
        routes.get("/customer/orders/{orderId}", order)
    }

    @Sendable func order(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let order = try await lookup.customersOwnOrder(context)
        var riderFirstName: String? = nil
        if let riderId = order.assignedRiderId, let rider = try await riders.rider(id: riderId) {
            riderFirstName = rider.firstName
        }
        let code = order.otpSeed.map { otp.code(orderId: order.id, seed: $0, storedHash: order.otpHash) }
        let trackable = TrackingChannel.isTrackable(order.status)
        // While the parcel is on its way: where the rider was last seen, whether that is stale, and the ETA.
        let live = trackable ? try? await tracking.snapshot(of: order) : nil
        return try .json(
            CustomerOrderRepresentation(
                orderId: order.id.lowercased, status: order.status, vendor: order.vendor,
                destination: .init(address: order.customer.address, location: order.customer.location),
                podType: order.podType, riderFirstName: riderFirstName,
                deliveryOtp: order.status.isFinal ? nil : code,
                etaSeconds: live?.etaSeconds,
                tracking: .init(
                    available: trackable,
                    lastKnown: live?.rider?.point,
                    lastKnownAt: live?.rider?.recordedAt, stale: live?.stale ?? false),
                createdAt: order.createdAt, updatedAt: order.updatedAt))
    }
}
