import Foundation
import LogisticsCore
import RoutePlanning

/// `POST /api/v1/plans` in VROOM's input format (snake_case keys, locations as `[lon, lat]` or `location_index`
/// into `matrices`), so a VROOM user switches by changing the URL.
struct PlanRequest: Decodable {
    struct Vehicle: Decodable {
        var id: UInt64
        var start: [Double]?
        var end: [Double]?
        var start_index: Int?
        var end_index: Int?
        var capacity: [Int]?
        var time_window: [Int]?
        var skills: [Int]?
    }

    struct Place: Decodable {
        var id: UInt64
        var location: [Double]?
        var location_index: Int?
        var service: Int?
        var time_windows: [[Int]]?
        var description: String?
    }

    struct Job: Decodable {
        var id: UInt64
        var location: [Double]?
        var location_index: Int?
        var service: Int?
        var delivery: [Int]?
        var pickup: [Int]?
        var time_windows: [[Int]]?
        var skills: [Int]?
        var priority: Int?
        var description: String?

        var place: Place {
            Place(
                id: id, location: location, location_index: location_index, service: service,
                time_windows: time_windows, description: description)
        }
    }

    struct Shipment: Decodable {
        var pickup: Place
        var delivery: Place
        var amount: [Int]?
        var skills: [Int]?
        var priority: Int?
    }

    struct Matrix: Decodable {
        var durations: [[Int]]?
        /// VROOM's custom costs: what the plan minimises instead of travel time.
        var costs: [[Int]]?
    }

    struct Options: Decodable {
        var seed: UInt64?
        /// Seconds of search.
        var time_limit: Double?
        var iterations: Int?
    }

    var vehicles: [Vehicle]
    var jobs: [Job]?
    var shipments: [Shipment]?
    var matrices: [String: Matrix]?
    var options: Options?

    /// How many stops the request asks to plan: what the size limit counts.
    var taskCount: Int { (jobs?.count ?? 0) + 2 * (shipments?.count ?? 0) }
}

/// A plan request checked field by field and turned into the solver's problem; positions given as coordinates are
/// collected (once each) for the router's matrix.
struct PlanInput {
    var problem: PlanProblem
    var options: PlanOptions
    /// The coordinates of each matrix index, when the router made the matrix.
    var coordinates: [GeoPoint]?
    var request: PlanRequest

    static let maxVehicles = 200

    /// Checks the request; `matrix` is asked for the durations between coordinates when no matrix was given.
    static func make(
        _ request: PlanRequest, maxTasks: Int, matrix: ([GeoPoint]) throws -> [[Int]]
    ) throws -> PlanInput {
        var errors: [FieldError] = []
        func fail(_ field: String, _ message: String) { errors.append(FieldError(field: field, message: message)) }
        if request.vehicles.isEmpty || request.vehicles.count > maxVehicles {
            fail("vehicles", "must list 1 to \(maxVehicles) vehicles")
        }
        if request.taskCount == 0 { fail("jobs", "give at least one job or shipment") }
        if request.taskCount > maxTasks {
            fail("jobs", "at most \(maxTasks) stops (jobs, and shipments counting two) are planned in one request")
        }
        let profile = request.matrices?.values.first { $0.durations != nil }
        let given = profile?.durations
        let costs = profile?.costs
        if request.matrices != nil && given == nil { fail("matrices", "must hold a durations matrix") }
        if let given, given.contains(where: { $0.count != given.count }) || given.joined().contains(where: { $0 < 0 }) {
            fail("matrices.durations", "must be square, of non-negative whole seconds")
        }
        if costs == nil, request.matrices?.values.contains(where: { $0.costs != nil }) == true {
            fail("matrices.costs", "give costs beside the durations matrix of the same profile")
        }
        if let costs, let given,
            costs.count != given.count || costs.contains(where: { $0.count != given.count })
                || costs.joined().contains(where: { $0 < 0 })
        {
            fail("matrices.costs", "must be square like durations, of non-negative whole numbers")
        }
        guard errors.isEmpty else { throw LogisticsError.validation(errors) }

        // Locations: matrix indices when a matrix is given, else coordinates numbered as they come.
        var coordinates: [GeoPoint] = []
        var indexOf: [String: Int] = [:]
        func location(_ point: [Double]?, _ index: Int?, field: String) -> Int {
            if let given {
                guard let index, (0..<given.count).contains(index) else {
                    fail("\(field).location_index", "must index the given matrix (0..<\(given.count))")
                    return 0
                }
                return index
            }
            guard let point, point.count == 2 else {
                fail("\(field).location", "must be [lon, lat] (or give matrices and location_index)")
                return 0
            }
            let position = GeoPoint(lat: point[1], lon: point[0])
            let invalid = position.validationErrors(field: "\(field).location")
            guard invalid.isEmpty else {
                errors += invalid
                return 0
            }
            let key = "\(point[0]),\(point[1])"
            if let known = indexOf[key] { return known }
            indexOf[key] = coordinates.count
            coordinates.append(position)
            return coordinates.count - 1
        }
        func windows(_ raw: [[Int]]?, field: String) -> [ClosedRange<Int>] {
            (raw ?? []).enumerated().compactMap { index, window in
                guard window.count == 2, window[0] >= 0, window[0] <= window[1] else {
                    fail("\(field)[\(index)]", "must be [start, end] in seconds with 0 ≤ start ≤ end")
                    return nil
                }
                return window[0]...window[1]
            }
        }
        let dimensions = request.vehicles.first?.capacity?.count ?? 0
        func amount(_ raw: [Int]?, field: String) -> [Int] {
            let value = raw ?? Array(repeating: 0, count: dimensions)
            if value.count != dimensions || value.contains(where: { $0 < 0 }) {
                fail(field, "must be \(dimensions) non-negative whole numbers, as the vehicles' capacity")
            }
            return value
        }
        func place(_ raw: PlanRequest.Place, kind: PlanProblem.StopKind, field: String) -> PlanProblem.Stop {
            if let service = raw.service, service < 0 { fail("\(field).service", "must be 0 or more seconds") }
            return PlanProblem.Stop(
                id: raw.id, kind: kind, location: location(raw.location, raw.location_index, field: field),
                service: max(0, raw.service ?? 0), windows: windows(raw.time_windows, field: "\(field).time_windows"))
        }
        func priority(_ raw: Int?, field: String) -> Int {
            if let raw, !(0...100).contains(raw) { fail(field, "must be 0 to 100") }
            return raw ?? 0
        }

        var vehicles: [PlanProblem.Vehicle] = []
        for (index, vehicle) in request.vehicles.enumerated() {
            let field = "vehicles[\(index)]"
            let start =
                vehicle.start != nil || vehicle.start_index != nil
                ? location(vehicle.start, vehicle.start_index, field: "\(field).start") : nil
            let end =
                vehicle.end != nil || vehicle.end_index != nil
                ? location(vehicle.end, vehicle.end_index, field: "\(field).end") : nil
            let shift = windows(vehicle.time_window.map { [$0] }, field: "\(field).time_window").first
            vehicles.append(
                PlanProblem.Vehicle(
                    id: vehicle.id, start: start, end: end,
                    capacity: amount(vehicle.capacity, field: "\(field).capacity"),
                    shift: shift ?? 0...PlanProblem.Vehicle.endOfTime, skills: Set(vehicle.skills ?? [])))
        }
        var requests: [PlanProblem.Request] = []
        for (index, job) in (request.jobs ?? []).enumerated() {
            let field = "jobs[\(index)]"
            requests.append(
                .job(
                    place(job.place, kind: .job, field: field),
                    delivery: amount(job.delivery, field: "\(field).delivery"),
                    pickup: amount(job.pickup, field: "\(field).pickup"), skills: Set(job.skills ?? []),
                    priority: priority(job.priority, field: "\(field).priority")))
        }
        for (index, shipment) in (request.shipments ?? []).enumerated() {
            let field = "shipments[\(index)]"
            requests.append(
                .shipment(
                    pickup: place(shipment.pickup, kind: .pickup, field: "\(field).pickup"),
                    delivery: place(shipment.delivery, kind: .delivery, field: "\(field).delivery"),
                    amount: amount(shipment.amount, field: "\(field).amount"), skills: Set(shipment.skills ?? []),
                    priority: priority(shipment.priority, field: "\(field).priority")))
        }
        for (kind, ids) in [
            ("jobs", (request.jobs ?? []).map(\.id)), ("shipments.pickup", (request.shipments ?? []).map(\.pickup.id)),
            ("shipments.delivery", (request.shipments ?? []).map(\.delivery.id)),
            ("vehicles", request.vehicles.map(\.id)),
        ] where Set(ids).count != ids.count {
            fail(kind, "ids must be unique")
        }
        if let limit = request.options?.time_limit, !(limit > 0 && limit <= 30) {
            fail("options.time_limit", "must be more than 0 and at most 30 seconds")
        }
        if let iterations = request.options?.iterations, !(0...1_000_000).contains(iterations) {
            fail("options.iterations", "must be 0 to 1000000")
        }
        guard errors.isEmpty else { throw LogisticsError.validation(errors) }

        let durations = try given ?? matrix(coordinates)
        let budget = request.options?.time_limit ?? min(5, 0.5 + Double(request.taskCount) / 100)
        return PlanInput(
            problem: PlanProblem(durations: durations, costs: costs, vehicles: vehicles, requests: requests),
            options: PlanOptions(
                seed: request.options?.seed ?? 1, timeLimit: .milliseconds(Int(budget * 1000)),
                maxIterations: request.options?.iterations),
            coordinates: given == nil ? coordinates : nil, request: request)
    }
}
