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
    // The inner loops read these flat arrays: an array of arrays costs a retain and a release per row read, which
    // was half of the search's time.
    private let locationCount: Int
    private let flatDurations: [Int]
    /// What each leg costs: the durations unless the problem gives costs.
    private let flatCosts: [Int]
    private let flatInitialLoad: [Int]
    private let flatDelta: [Int]
    private let flatCapacity: [Int]
    private let windowFirst: [Int]
    private let windowStart: [Int]
    private let windowEnd: [Int]
    /// Per vehicle: start and end location (-1: none), shift.
    let vehicleStart: [Int]
    let vehicleEnd: [Int]
    private let shiftStart: [Int]
    private let shiftEnd: [Int]

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
        locationCount = problem.durations.count
        flatDurations = problem.durations.flatMap { $0 }
        flatCosts = problem.costs.map { $0.flatMap { $0 } } ?? flatDurations
        flatInitialLoad = initial.flatMap { $0 }
        flatDelta = delta.flatMap { $0 }
        flatCapacity = problem.vehicles.flatMap { padded($0.capacity) }
        var first = [0]
        for stopWindows in windows { first.append(first.last! + stopWindows.count) }
        windowFirst = first
        windowStart = windows.flatMap { $0.map(\.lowerBound) }
        windowEnd = windows.flatMap { $0.map(\.upperBound) }
        vehicleStart = problem.vehicles.map { $0.start ?? -1 }
        vehicleEnd = problem.vehicles.map { $0.end ?? -1 }
        shiftStart = problem.vehicles.map(\.shift.lowerBound)
        shiftEnd = problem.vehicles.map(\.shift.upperBound)
    }

    func travel(_ from: Int?, _ to: Int?) -> Int {
        guard let from, let to else { return 0 }
        return flatDurations[from * locationCount + to]
    }

    /// The cost of travel between locations, where -1 means "none" (a vehicle without a start or an end): nothing
    /// to drive. The travel time unless the problem prices legs otherwise.
    @inline(__always)
    func leg(_ from: Int, _ to: Int) -> Int {
        from < 0 || to < 0 ? 0 : flatCosts[from * locationCount + to]
    }

    /// The route's cost, what the search minimises: start → stops → end.
    func cost(vehicle: Int, route: [Int]) -> Int {
        var previous = vehicleStart[vehicle]
        var total = 0
        for stop in route {
            total += leg(previous, stopLocation[stop])
            previous = stopLocation[stop]
        }
        return total + leg(previous, vehicleEnd[vehicle])
    }

    /// The cost added by putting `stop` at each position `0...route.count` of the vehicle's route, into `added`
    /// (reused, so the search's innermost loop allocates nothing).
    func insertionCosts(of stop: Int, vehicle: Int, route: [Int], into added: inout [Int]) {
        added.removeAll(keepingCapacity: true)
        let place = stopLocation[stop]
        let count = locationCount
        let end = vehicleEnd[vehicle]
        var before = vehicleStart[vehicle]
        flatCosts.withUnsafeBufferPointer { costs in
            stopLocation.withUnsafeBufferPointer { location in
                route.withUnsafeBufferPointer { route in
                    @inline(__always) func leg(_ from: Int, _ to: Int) -> Int {
                        from < 0 || to < 0 ? 0 : costs[from * count + to]
                    }
                    for position in 0...route.count {
                        let after = position == route.count ? end : location[route[position]]
                        added.append(leg(before, place) + leg(place, after) - leg(before, after))
                        before = after
                    }
                }
            }
        }
    }

    /// Whether the load the vehicle starts with (the deliveries of its jobs) stays within capacity once `stops` join
    /// the route: a condition every feasible insertion meets, cheap enough to ask once per route.
    func startLoadFits(vehicle: Int, route: [Int], adding stops: [Int]) -> Bool {
        let dimensions = self.dimensions
        return flatInitialLoad.withUnsafeBufferPointer { initial in
            for dimension in 0..<dimensions {
                var total = 0
                for stop in route { total += initial[stop * dimensions + dimension] }
                for stop in stops { total += initial[stop * dimensions + dimension] }
                if total > flatCapacity[vehicle * dimensions + dimension] { return false }
            }
            return true
        }
    }

    /// Whether the route keeps every time window, the shift and the capacity. (A shipment's pickup precedes its
    /// delivery by construction: both are inserted and removed together, in that order.)
    func isFeasible(vehicle: Int, route: [Int], load: inout [Int]) -> Bool {
        let dimensions = self.dimensions
        let capacityBase = vehicle * dimensions
        return flatDurations.withUnsafeBufferPointer { durations in
            flatCapacity.withUnsafeBufferPointer { capacity in
                flatDelta.withUnsafeBufferPointer { delta in
                    flatInitialLoad.withUnsafeBufferPointer { initial in
                        stopLocation.withUnsafeBufferPointer { location in
                            route.withUnsafeBufferPointer { route in
                                load.withUnsafeMutableBufferPointer { load in
                                    for dimension in 0..<dimensions { load[dimension] = 0 }
                                    for stop in route {
                                        for dimension in 0..<dimensions {
                                            load[dimension] += initial[stop * dimensions + dimension]
                                        }
                                    }
                                    for dimension in 0..<dimensions
                                    where load[dimension] > capacity[capacityBase + dimension] {
                                        return false
                                    }
                                    var time = shiftStart[vehicle]
                                    var previous = vehicleStart[vehicle]
                                    for stop in route {
                                        let place = location[stop]
                                        let arrival =
                                            time + (previous < 0 ? 0 : durations[previous * locationCount + place])
                                        var begin = -1
                                        for window in windowFirst[stop]..<windowFirst[stop + 1]
                                        where windowEnd[window] >= arrival {
                                            begin = max(arrival, windowStart[window])
                                            break
                                        }
                                        if begin < 0 { return false }
                                        time = begin + stopService[stop]
                                        previous = place
                                        for dimension in 0..<dimensions {
                                            load[dimension] += delta[stop * dimensions + dimension]
                                            let value = load[dimension]
                                            if value > capacity[capacityBase + dimension] || value < 0 { return false }
                                        }
                                    }
                                    let end = vehicleEnd[vehicle]
                                    let last = previous < 0 || end < 0 ? 0 : durations[previous * locationCount + end]
                                    return time + last <= shiftEnd[vehicle]
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
