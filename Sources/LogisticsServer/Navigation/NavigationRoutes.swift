import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import RoadRouting

/// Routes for riders (to the next stop of their task) and for dispatchers (between any two points).
struct NavigationRoutes {
    let navigator: Navigator
    let deliveries: any DeliveryRepository
    let orders: any OrderRepository
    let locations: any LocationRepository
    /// A rider's task route is timed by their vehicle (`RiderTravelTime.timed`).
    let vehicles: RiderVehicles
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        routes.get("/routes", route)
        routes.get("/rider/tasks/{taskId}/route", taskRoute)
    }

    /// How far ahead a departure may be planned: learned speeds repeat weekly.
    static let departureHorizon: TimeInterval = 7 * 86_400
    /// A departure this little in the past is taken as now: the caller's clock may be a little behind.
    static let departureClockSkew: TimeInterval = 60

    /// `GET /api/v1/routes?from=lat,lon&to=lat,lon[&profile=…][&optimize=time|distance][&departAt=RFC 3339]` for
    /// dispatchers.
    @Sendable func route(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let query = request.uri.queryParameters
        let now = clock.now()
        var errors: [FieldError] = []
        let from = Self.point(query["from"].map(String.init), field: "from", errors: &errors)
        let to = Self.point(query["to"].map(String.init), field: "to", errors: &errors)
        let profile = Self.profile(query["profile"].map(String.init), errors: &errors)
        let metric = Self.metric(query["optimize"].map(String.init), errors: &errors)
        let departAt = Self.departure(query["departAt"].map(String.init), now: now, errors: &errors)
        guard errors.isEmpty, let from, let to else { throw LogisticsError.validation(errors) }
        let route = try await navigator.route(
            RouteRequest(from: from, to: to, metric: metric, departAt: departAt), profile: profile, now: now)
        return .json(route)
    }

    /// A departure time: RFC 3339, not in the past, within a week. Nil (leave now) when absent or invalid.
    static func departure(_ raw: String?, now: Date, errors: inout [FieldError]) -> Date? {
        guard let raw else { return nil }
        guard let date = RFC3339.date(from: raw) else {
            errors.append(FieldError(field: "departAt", message: "must be an RFC 3339 date-time"))
            return nil
        }
        if date < now.addingTimeInterval(-departureClockSkew) {
            errors.append(FieldError(field: "departAt", message: "must not be in the past"))
            return nil
        }
        if date > now.addingTimeInterval(departureHorizon) {
            errors.append(FieldError(field: "departAt", message: "must be within 7 days from now"))
            return nil
        }
        return max(date, now)
    }

    /// `GET /api/v1/rider/tasks/{taskId}/route?from=lat,lon[&heading=deg]`: to the store before pickup, to the
    /// customer after. Without `from`, the rider's last known position is used.
    @Sendable func taskRoute(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let taskId = try context.uuidParameter("taskId")
        let query = request.uri.queryParameters
        var errors: [FieldError] = []
        var from =
            query["from"] == nil ? nil : Self.point(query["from"].map(String.init), field: "from", errors: &errors)
        var heading: Double?
        if let raw = query["heading"] {
            heading = Double(String(raw))
            if heading.map({ !$0.isFinite || $0 < 0 || $0 >= 360 }) ?? true {
                errors.append(FieldError(field: "heading", message: "must be a number of degrees in 0..<360"))
            }
        }
        guard errors.isEmpty else { throw LogisticsError.validation(errors) }
        guard let task = try await deliveries.task(id: taskId) else { throw LogisticsError.notFound("task") }
        guard task.riderId == rider.id else { throw LogisticsError(.forbidden, "This task belongs to another rider") }
        guard let order = try await orders.order(id: task.orderId) else {
            throw LogisticsError.notFound("task")
        }
        guard let destination = Self.nextStop(task, order) else {
            throw LogisticsError(
                .conflict, "The task is \(task.status.rawValue); there is nowhere left to go",
                extras: ["currentStatus": .string(task.status.rawValue)])
        }
        if from == nil { from = try await locations.lastPosition(riderId: rider.id)?.0 }
        guard let from else {
            throw LogisticsError.validation(field: "from", "is required until the rider has sent a location fix")
        }
        let route = try await navigator.route(
            RouteRequest(from: from, to: destination, headingDeg: heading), profile: nil, now: clock.now())
        // The road is the profile's; the time is the rider's vehicle's (a bicycle no faster than its own speed).
        return .json(RiderTravelTime.timed(route, vehicle: await vehicles.vehicle(of: rider.id)))
    }

    /// The store before pickup, the customer after; nil once the task has ended.
    static func nextStop(_ task: DeliveryTask, _ order: Order) -> GeoPoint? {
        switch task.status.nextStop {
        case .store: order.vendor.location
        case .customer: order.customer.location
        case nil: nil
        }
    }

    /// A routing profile by name (nil: the server's default), recording a field error for an unknown one.
    static func profile(_ raw: String?, errors: inout [FieldError]) -> RoutingProfile.Name? {
        guard let raw else { return nil }
        guard let profile = RoutingProfile.Name(rawValue: raw) else {
            errors.append(FieldError(field: "profile", message: "must be motorcycle or car"))
            return nil
        }
        return profile
    }

    /// Parses `lat,lon`, recording a field error when it is missing or malformed.
    static func point(_ raw: String?, field: String, errors: inout [FieldError]) -> GeoPoint? {
        guard let raw else {
            errors.append(FieldError(field: field, message: "is required as lat,lon"))
            return nil
        }
        guard let point = GeoPoint(commaSeparated: raw) else {
            errors.append(FieldError(field: field, message: "must be lat,lon with two numbers"))
            return nil
        }
        let problems = point.validationErrors(field: field)
        errors.append(contentsOf: problems)
        return problems.isEmpty ? point : nil
    }

    static func metric(_ raw: String?, errors: inout [FieldError]) -> RouteMetric {
        guard let raw else { return .time }
        guard let metric = RouteMetric(rawValue: raw) else {
            errors.append(FieldError(field: "optimize", message: "must be time or distance"))
            return .time
        }
        return metric
    }
}
