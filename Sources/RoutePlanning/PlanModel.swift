/// The problem flattened for the solver: every stop of every request numbered once, with what the inner loops read
/// kept in plain arrays.
struct PlanModel {
    let problem: PlanProblem
    let dimensions: Int
    let stopLocation: [Int]
    let stopService: [Int]
    let stopWindows: [[ClosedRange<Int>]]
    let stopRequest: [Int]
    /// Load change at the stop, per dimension.
    let stopDelta: [[Int]]
    /// Load a route starts with for this stop (a job's delivery amount); zero for shipments.
    let stopInitialLoad: [[Int]]
    /// The stops of each request, in their order (pickup before delivery).
    let requestStops: [[Int]]
    let capacities: [[Int]]
    /// Which vehicles may serve each request (skills).
    let allowed: [[Bool]]
    let durations: [[Int]]

    init(_ problem: PlanProblem) {
        self.problem = problem
        let dimensions = max(1, problem.dimensions)
        self.dimensions = dimensions
        func padded(_ amounts: [Int]) -> [Int] { amounts + Array(repeating: 0, count: dimensions - amounts.count) }
        var location: [Int] = []
        var service: [Int] = []
        var windows: [[ClosedRange<Int>]] = []
        var request: [Int] = []
        var delta: [[Int]] = []
        var initial: [[Int]] = []
        var requestStops: [[Int]] = []
        let zero = Array(repeating: 0, count: dimensions)
        for (index, item) in problem.requests.enumerated() {
            var stops: [Int] = []
            for (position, stop) in item.stops.enumerated() {
                stops.append(location.count)
                location.append(stop.location)
                service.append(stop.service)
                windows.append(stop.windows)
                request.append(index)
                if item.isShipment {
                    let amount = padded(item.delivery)
                    delta.append(position == 0 ? amount : amount.map { -$0 })
                    initial.append(zero)
                } else {
                    let delivery = padded(item.delivery)
                    let pickup = padded(item.pickup)
                    delta.append(zip(pickup, delivery).map { $0 - $1 })
                    initial.append(delivery)
                }
            }
            requestStops.append(stops)
        }
        stopLocation = location
        stopService = service
        stopWindows = windows
        stopRequest = request
        stopDelta = delta
        stopInitialLoad = initial
        self.requestStops = requestStops
        capacities = problem.vehicles.map { padded($0.capacity) }
        allowed = problem.requests.map { item in problem.vehicles.map { item.skills.isSubset(of: $0.skills) } }
        durations = problem.durations
    }

    func travel(_ from: Int?, _ to: Int?) -> Int {
        guard let from, let to else { return 0 }
        return durations[from][to]
    }

    /// Travel time of the route (its cost): start → stops → end.
    func cost(vehicle: Int, route: [Int]) -> Int {
        let rider = problem.vehicles[vehicle]
        var previous = rider.start
        var total = 0
        for stop in route {
            total += travel(previous, stopLocation[stop])
            previous = stopLocation[stop]
        }
        return total + travel(previous, rider.end)
    }

    /// Whether the route keeps every time window, the shift and the capacity. (A shipment's pickup precedes its
    /// delivery by construction: both are inserted and removed together, in that order.)
    func isFeasible(vehicle: Int, route: [Int], load: inout [Int]) -> Bool {
        let rider = problem.vehicles[vehicle]
        let capacity = capacities[vehicle]
        for dimension in 0..<dimensions { load[dimension] = 0 }
        for stop in route {
            let initial = stopInitialLoad[stop]
            for dimension in 0..<dimensions { load[dimension] += initial[dimension] }
        }
        for dimension in 0..<dimensions where load[dimension] > capacity[dimension] { return false }
        var time = rider.shift.lowerBound
        var previous = rider.start
        for stop in route {
            let arrival = time + travel(previous, stopLocation[stop])
            guard let window = stopWindows[stop].first(where: { $0.upperBound >= arrival }) else { return false }
            time = max(arrival, window.lowerBound) + stopService[stop]
            previous = stopLocation[stop]
            let delta = stopDelta[stop]
            for dimension in 0..<dimensions {
                load[dimension] += delta[dimension]
                if load[dimension] > capacity[dimension] || load[dimension] < 0 { return false }
            }
        }
        return time + travel(previous, rider.end) <= rider.shift.upperBound
    }
}
