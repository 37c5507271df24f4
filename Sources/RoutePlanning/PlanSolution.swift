/// A plan: each rider's visits with their times and loads, what could not be placed and why, and the totals.
public struct PlanSolution: Sendable {
    public struct Visit: Sendable, Equatable {
        /// The request (index into the problem's requests) and which of its stops.
        public var request: Int
        public var stop: PlanProblem.Stop
        public var arrival: Int
        public var waiting: Int
        /// Travel time so far on this route.
        public var travelled: Int
        /// The load after this visit.
        public var load: [Int]
    }

    public struct Route: Sendable {
        public var vehicle: Int
        public var departure: Int
        /// Load when leaving the start.
        public var startLoad: [Int]
        public var visits: [Visit]
        /// Arrival at the end (or at the last visit's departure when the rider has no end).
        public var arrivalAtEnd: Int
        /// Travel time, start to end.
        public var duration: Int
        /// What the route costs: its travel time unless the problem prices legs otherwise.
        public var cost: Int
        public var service: Int
        public var waiting: Int
    }

    public struct Unassigned: Sendable, Equatable {
        public var request: Int
        public var reason: String
    }

    public var routes: [Route]
    public var unassigned: [Unassigned]
    public var cost: Int
    public var iterations: Int
    public var solvingTime: Duration

    init(model: PlanModel, routes stops: [[Int]], unassigned: [Int], iterations: Int, solvingTime: Duration) {
        var routes: [Route] = []
        for (vehicle, route) in stops.enumerated() where !route.isEmpty {
            routes.append(Self.schedule(model: model, vehicle: vehicle, route: route))
        }
        self.routes = routes
        self.unassigned = unassigned.map { Unassigned(request: $0, reason: Self.reason(model: model, request: $0)) }
        cost = routes.reduce(0) { $0 + $1.cost }
        self.iterations = iterations
        self.solvingTime = solvingTime
    }

    static func schedule(model: PlanModel, vehicle: Int, route: [Int]) -> Route {
        let rider = model.problem.vehicles[vehicle]
        var load = Array(repeating: 0, count: model.dimensions)
        for stop in route {
            for dimension in 0..<model.dimensions { load[dimension] += model.stopInitialLoad[stop][dimension] }
        }
        let startLoad = load
        var time = rider.shift.lowerBound
        var previous = rider.start
        var travelled = 0
        var waitingTotal = 0
        var serviceTotal = 0
        var visits: [Visit] = []
        for stop in route {
            let leg = model.travel(previous, model.stopLocation[stop])
            travelled += leg
            let arrival = time + leg
            let window = model.stopWindows[stop].first { $0.upperBound >= arrival } ?? model.stopWindows[stop].last!
            let begin = max(arrival, window.lowerBound)
            time = begin + model.stopService[stop]
            for dimension in 0..<model.dimensions { load[dimension] += model.stopDelta[stop][dimension] }
            let request = model.stopRequest[stop]
            let item = model.problem.requests[request]
            visits.append(
                Visit(
                    request: request, stop: item.stops[model.requestStops[request].firstIndex(of: stop)!],
                    arrival: arrival, waiting: begin - arrival, travelled: travelled, load: load))
            waitingTotal += begin - arrival
            serviceTotal += model.stopService[stop]
            previous = model.stopLocation[stop]
        }
        let last = model.travel(previous, rider.end)
        return Route(
            vehicle: vehicle, departure: rider.shift.lowerBound, startLoad: startLoad, visits: visits,
            arrivalAtEnd: time + last, duration: travelled + last, cost: model.cost(vehicle: vehicle, route: route),
            service: serviceTotal, waiting: waitingTotal)
    }

    /// Why a request is in no route: what no rider could do, tried one rider at a time on an empty route.
    static func reason(model: PlanModel, request: Int) -> String {
        let vehicles = model.problem.vehicles.indices
        guard vehicles.contains(where: { model.allowed[request][$0] }) else {
            return "no rider has the skills it needs"
        }
        let item = model.problem.requests[request]
        func padded(_ amounts: [Int]) -> [Int] {
            amounts + Array(repeating: 0, count: max(0, model.dimensions - amounts.count))
        }
        let amount = zip(padded(item.delivery), padded(item.pickup)).map { max($0, $1) }
        let fits = vehicles.contains { vehicle in
            model.allowed[request][vehicle]
                && amount.enumerated().allSatisfy { $0.element <= model.capacities[vehicle][$0.offset] }
        }
        guard fits else { return "its amount is more than any rider can carry" }
        var load = Array(repeating: 0, count: model.dimensions)
        let alone = vehicles.contains { vehicle in
            model.allowed[request][vehicle]
                && model.isFeasible(vehicle: vehicle, route: model.requestStops[request], load: &load)
        }
        guard alone else {
            let unreachable = model.requestStops[request].contains { stop in
                vehicles.allSatisfy {
                    model.travel(model.problem.vehicles[$0].start, model.stopLocation[stop]) >= PlanProblem.unreachable
                }
            }
            return unreachable
                ? "no road leads there from any rider's start"
                : "no rider can reach it within its time windows and their shift"
        }
        return "no room left in any route: riders' capacity or time is taken by other stops"
    }
}
