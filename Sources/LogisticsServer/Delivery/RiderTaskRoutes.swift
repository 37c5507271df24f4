import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import RoadRouting

/// The rider's side of a delivery: the active task, status taps and problems on the way.
struct RiderTaskRoutes {
    let deliveries: any DeliveryRepository
    let locations: any LocationRepository
    let navigator: Navigator
    let etas: EtaLedger
    /// The active task's route is timed by the rider's vehicle (`RiderTravelTime.timed`).
    let vehicles: RiderVehicles
    let delivery: DeliverySettings
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        routes.get("/rider/tasks/active", activeTask)
        routes.patch("/rider/tasks/{taskId}/status", changeStatus)
        routes.post("/rider/tasks/{taskId}/issues", roles: [.rider], replay: .acknowledged(.created), reportIssue)
    }

    @Sendable func activeTask(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let trip = try await deliveries.activeTrip(riderId: rider.id)
        guard let current = trip.current else {
            throw LogisticsError(.noActiveTask, "You have no delivery in progress")
        }
        var representation = TaskRepresentation(current.task, current.order, delivery: delivery, trip: trip)
        // The route to the next stop from the last fix; the task is shown even when no route can be made.
        if let stop = representation.nextStop?.location,
            let (position, _) = try await locations.lastPosition(riderId: rider.id)
        {
            let route = try? await navigator.route(
                RouteRequest(from: position, to: stop), profile: nil, now: clock.now())
            if let route {
                representation.route = RiderTravelTime.timed(route, vehicle: await vehicles.vehicle(of: rider.id))
            }
        }
        return try .json(representation)
    }

    @Sendable func changeStatus(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let taskId = try context.uuidParameter("taskId")
        let body = try await RequestBody.decode(StatusChangeRequest.self, from: request)
        var errors = body.location?.validationErrors(field: "location") ?? []
        if body.location == nil && body.noLocationReason == nil {
            errors.append(
                FieldError(
                    field: "location",
                    message: "is required, or noLocationReason (PERMISSION_DENIED, NO_FIX, INSECURE_ORIGIN) saying why")
            )
        }
        guard errors.isEmpty else { throw LogisticsError.validation(errors) }
        let change = DeliveryRules.StatusChange(
            status: body.status, location: body.location, noLocationReason: body.noLocationReason,
            occurredAt: body.occurredAt, farFromDestinationConfirmed: body.farFromDestinationConfirmed ?? false,
            reason: body.reason)
        let (task, order) = try await deliveries.changeStatus(
            taskId: taskId, eventId: body.eventId, change: change, by: rider, now: clock.now(),
            settings: delivery.rules)
        switch task.status {
        case .pickedUp:
            if let location = body.location {
                await etas.pickedUp(
                    orderId: order.id, destination: order.customer.location, at: location,
                    occurredAt: body.occurredAt, riderId: rider.id)
            }
        case .arrivedAtDestination, .delivered:
            await etas.arrived(orderId: order.id, at: body.occurredAt)
        default:
            break
        }
        return try .json(
            try await TaskRepresentation.forRider(task, order, deliveries: deliveries, delivery: delivery))
    }

    @Sendable func reportIssue(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let taskId = try context.uuidParameter("taskId")
        let body = try await RequestBody.decode(ReportIssueRequest.self, from: request)
        var errors = body.location?.validationErrors(field: "location") ?? []
        if let note = body.note, note.count > DeliveryIssueType.maximumNoteLength {
            errors.append(
                FieldError(field: "note", message: "must be at most \(DeliveryIssueType.maximumNoteLength) characters"))
        }
        guard errors.isEmpty else { throw LogisticsError.validation(errors) }
        let now = clock.now()
        let note = body.note?.trimmingCharacters(in: .whitespacesAndNewlines)
        let issue = try await deliveries.reportIssue(
            taskId: taskId, type: body.type, note: note?.isEmpty == false ? note : nil, location: body.location,
            occurredAt: body.occurredAt ?? now,
            by: rider, now: now)
        return try .json(
            IssueRepresentation(
                issueId: issue.id.lowercased, taskId: taskId.lowercased, type: issue.type, note: issue.note,
                location: issue.location, occurredAt: issue.occurredAt,
                notified: issue.customerReachable ? [.dispatcher, .customer] : [.dispatcher]), status: .created)
    }
}

struct IssueRepresentation: Encodable {
    var issueId: String
    var taskId: String
    var type: DeliveryIssueType
    var note: String?
    var location: GeoPoint?
    var occurredAt: Date
    /// Who the report reached: dispatchers always (their page shows it live), the customer when they have a phone
    /// registered for notifications. The rider app says so, and no more.
    var notified: [Audience]

    enum Audience: String, Encodable {
        case dispatcher = "DISPATCHER"
        case customer = "CUSTOMER"
    }
}
