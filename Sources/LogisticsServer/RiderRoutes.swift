import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `/api/v1/rider`: the rider's own profile and availability.
struct RiderRoutes {
    let services: LogisticsServices

    func register(in routes: inout RouteTable) {
        routes.get("/rider/me", me)
        routes.put("/rider/availability", availability)
    }

    @Sendable func me(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.rider)
        guard let rider = try await services.repository.rider(id: actor.id) else {
            throw LogisticsError.notFound("rider")
        }
        return try .json(RiderRepresentation(rider))
    }

    @Sendable func availability(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.rider)
        let body = try await RequestBody.decode(AvailabilityRequest.self, from: request)
        let rider = try await services.repository.setAvailability(
            riderId: actor.id, to: body.status, now: services.clock.now())
        return try .json(RiderRepresentation(rider))
    }
}

/// `/api/v1/riders`: the fleet for the dispatcher's map, and administration of rider accounts.
struct RiderAdministrationRoutes {
    let services: LogisticsServices

    func register(in routes: inout RouteTable) {
        routes.get("/riders", fleet)
        routes.post("/riders/{riderId}/suspend") { request, context in try await setSuspended(true, context) }
        routes.post("/riders/{riderId}/reinstate") { request, context in try await setSuspended(false, context) }
    }

    @Sendable func fleet(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let availability = try request.queryValue("availability", as: RiderAvailability.self)
        let limit = try request.queryLimit(default: 1000, range: 1...5000)
        let riders = try await services.repository.fleet(availability: availability, limit: limit)
        return try .json(["riders": riders.map(FleetRiderRepresentation.init)])
    }

    private func setSuspended(_ suspended: Bool, _ context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        let riderId = try context.uuidParameter("riderId")
        let rider = try await services.repository.setRiderSuspended(
            id: riderId, suspended: suspended, now: services.clock.now())
        services.knownCallers.forgetRider(riderId)
        return try .json(RiderRepresentation(rider))
    }
}

/// `/api/v1/customer/orders/{orderId}`: the customer's view of their own order.
struct CustomerRoutes {
    let services: LogisticsServices

    func register(in routes: inout RouteTable) {
        routes.get("/customer/orders/{orderId}", order)
    }

    @Sendable func order(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let order = try await services.customersOwnOrder(context)
        var riderFirstName: String? = nil
        if let riderId = order.assignedRiderId, let rider = try await services.repository.rider(id: riderId) {
            riderFirstName = rider.name?.split(separator: " ").first.map(String.init)
        }
        let code = order.otpSeed.map { services.otp.code(orderId: order.id, seed: $0, storedHash: order.otpHash) }
        let trackable = TrackingChannel.isTrackable(order.status)
        // While the parcel is on its way: where the rider was last seen, whether that is stale, and the ETA.
        let live = trackable ? try? await TrackingRoutes.snapshot(of: order, services: services) : nil
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
