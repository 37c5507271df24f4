import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import RoadRouting

/// The rider's side of a delivery: offers, the active task, status taps and problems on the way.
struct RiderTaskRoutes {
    let services: LogisticsServices

    func register(in routes: inout RouteTable) {
        routes.get("/rider/offers", offers)
        routes.post("/rider/offers/{offerId}/accept", replay: .rerun, accept)
        routes.post("/rider/offers/{offerId}/decline", decline)
        routes.get("/rider/tasks/active", activeTask)
        routes.patch("/rider/tasks/{taskId}/status", changeStatus)
        routes.post("/rider/tasks/{taskId}/issues", replay: .acknowledged(.created), reportIssue)
    }

    @Sendable func offers(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let now = services.clock.now()
        let open = try await services.deliveries.openOffers(riderId: rider.id, now: now)
        let here = try await services.locations.lastPosition(riderId: rider.id)?.0
        var offers: [OfferRepresentation] = []
        for (offer, order) in open {
            var representation = OfferRepresentation(offer, order: order, now: now)
            representation.distances = await roadDistances(from: here, order: order, now: now)
            offers.append(representation)
        }
        return try .json(OfferList(offers: offers))
    }

    /// RDR-012: how far the rider rides for this order, by road (nil where the router cannot tell).
    private func roadDistances(from here: GeoPoint?, order: Order, now: Date) async -> OfferRepresentation.Distances? {
        func road(_ from: GeoPoint, _ to: GeoPoint) async -> Double? {
            try? await services.navigator.route(RouteRequest(from: from, to: to), profile: nil, now: now).distanceM
        }
        let toCustomer = await road(order.vendor.location, order.customer.location)
        let toStore: Double? = if let here { await road(here, order.vendor.location) } else { nil }
        guard toCustomer != nil || toStore != nil else { return nil }
        return OfferRepresentation.Distances(toStoreM: toStore, storeToCustomerM: toCustomer)
    }

    @Sendable func accept(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let offerId = try context.uuidParameter("offerId")
        let (task, order) = try await services.deliveries.acceptOffer(
            offerId: offerId, by: rider, now: services.clock.now())
        return try .json(TaskRepresentation(task, order, configuration: services.configuration))
    }

    @Sendable func decline(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let offerId = try context.uuidParameter("offerId")
        let offer = try await services.deliveries.declineOffer(
            offerId: offerId, riderId: rider.id, now: services.clock.now())
        return try .json(OfferRepresentation(offer))
    }

    @Sendable func activeTask(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        guard let (task, order) = try await services.deliveries.activeTask(riderId: rider.id) else {
            throw LogisticsError(.noActiveTask, "You have no delivery in progress")
        }
        var representation = TaskRepresentation(task, order, configuration: services.configuration)
        // The route to the next stop from the last fix; the task is shown even when no route can be made.
        if let stop = representation.nextStop?.location,
            let (position, _) = try await services.locations.lastPosition(riderId: rider.id)
        {
            representation.route = try? await services.navigator.route(
                RouteRequest(from: position, to: stop), profile: nil, now: services.clock.now())
        }
        return try .json(representation)
    }

    @Sendable func changeStatus(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let taskId = try context.uuidParameter("taskId")
        let body = try await RequestBody.decode(StatusChangeRequest.self, from: request)
        let errors = body.location.validationErrors(field: "location")
        guard errors.isEmpty else { throw LogisticsError.validation(errors) }
        let change = DeliveryRules.StatusChange(
            status: body.status, location: body.location, occurredAt: body.occurredAt,
            farFromDestinationConfirmed: body.farFromDestinationConfirmed ?? false, reason: body.reason)
        let (task, order) = try await services.deliveries.changeStatus(
            taskId: taskId, eventId: body.eventId, change: change, by: rider, now: services.clock.now(),
            settings: services.deliverySettings)
        return try .json(TaskRepresentation(task, order, configuration: services.configuration))
    }

    @Sendable func reportIssue(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let taskId = try context.uuidParameter("taskId")
        let body = try await RequestBody.decode(ReportIssueRequest.self, from: request)
        var errors = body.location?.validationErrors(field: "location") ?? []
        if let note = body.note, note.count > 1000 {
            errors.append(FieldError(field: "note", message: "must be at most 1000 characters"))
        }
        guard errors.isEmpty else { throw LogisticsError.validation(errors) }
        let now = services.clock.now()
        let issue = try await services.deliveries.reportIssue(
            taskId: taskId, type: body.type, note: body.note, location: body.location,
            occurredAt: body.occurredAt ?? now,
            by: rider, now: now)
        return try .json(
            IssueRepresentation(
                issueId: issue.id.lowercased, taskId: taskId.lowercased, type: issue.type, note: issue.note,
                location: issue.location, occurredAt: issue.occurredAt), status: .created)
    }
}

struct IssueRepresentation: Encodable {
    var issueId: String
    var taskId: String
    var type: DeliveryIssueType
    var note: String?
    var location: GeoPoint?
    var occurredAt: Date
}
