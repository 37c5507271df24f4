import Foundation

/// How long and how the solver searches.
public struct PlanOptions: Sendable {
    public var seed: UInt64
    /// Wall-clock budget for the search after the first plan.
    public var timeLimit: Duration
    /// A cap on search iterations: with it (and a budget that does not run out first), the plan depends on the seed
    /// alone, on any machine.
    public var maxIterations: Int?

    public init(seed: UInt64 = 1, timeLimit: Duration = .seconds(1), maxIterations: Int? = nil) {
        self.seed = seed
        self.timeLimit = timeLimit
        self.maxIterations = maxIterations
    }
}

/// Plans routes: a first plan by cheapest insertion, then ruin and recreate in the manner of SISR (Christiaens &
/// Vanden Berghe, 2020): remove strings of nearby stops from a few routes, put the requests back one by one where
/// they cost least (now and then skipping a position, "blinks"), and keep the result by simulated annealing.
/// Requests that fit nowhere stay unassigned, with the reason.
public struct PlanSolver {
    let model: PlanModel
    let options: PlanOptions
    /// Other requests by how near their first stop is, nearest first.
    let neighbours: [[Int]]
    let hasShipments: Bool
    /// Per request, the keys `order` sorts by: far from the first start first, tightest window, largest amount.
    let sortKeys: [[Int]]

    public init(problem: PlanProblem, options: PlanOptions = PlanOptions()) {
        let model = PlanModel(problem)
        self.model = model
        self.options = options
        hasShipments = model.requestStops.contains { $0.count > 1 }
        let start = model.problem.vehicles.first?.start
        let firstStops = model.requestStops.map { $0[0] }
        sortKeys = [
            firstStops.map { -model.travel(start, model.stopLocation[$0]) },
            firstStops.map { model.stopWindows[$0].last!.upperBound },
            model.problem.requests.map { -$0.delivery.reduce(0, +) },
        ]
        let first = model.requestStops.map { model.stopLocation[$0[0]] }
        neighbours = first.indices.map { request in
            first.indices.filter { $0 != request }.sorted {
                let a = min(model.leg(first[request], first[$0]), model.leg(first[$0], first[request]))
                let b = min(model.leg(first[request], first[$1]), model.leg(first[$1], first[request]))
                return (a, $0) < (b, $1)
            }
        }
    }

    struct State {
        var routes: [[Int]]
        var costs: [Int]
        var unassigned: Set<Int>
    }

    /// The penalty of leaving a request out: above any plan's travel time, higher for higher priorities.
    func penalty(_ request: Int) -> Int { 1_000_000_000 + model.problem.requests[request].priority * 1_000_000 }

    func objective(_ state: State) -> Int {
        state.costs.reduce(0, +) + state.unassigned.reduce(0) { $0 + penalty($1) }
    }

    public func solve() -> PlanSolution {
        let started = ContinuousClock.now
        var random = PlanRandom(seed: options.seed)
        var load = Array(repeating: 0, count: model.dimensions)
        var current = State(
            routes: Array(repeating: [], count: model.problem.vehicles.count),
            costs: model.problem.vehicles.indices.map { model.cost(vehicle: $0, route: []) },
            unassigned: [])
        let everything = Array(model.problem.requests.indices)
        recreate(
            &current, requests: order(everything, rule: 1, random: &random), blink: 0, random: &random, load: &load)
        var best = current
        var currentObjective = objective(current)
        var bestObjective = currentObjective
        var iterations = 0
        let hot = 100.0
        let cold = 1.0
        while !everything.isEmpty {
            let elapsed = ContinuousClock.now - started
            if elapsed >= options.timeLimit { break }
            if let cap = options.maxIterations, iterations >= cap { break }
            var progress = elapsed / options.timeLimit
            if let cap = options.maxIterations { progress = max(progress, Double(iterations) / Double(cap)) }
            let temperature = hot * pow(cold / hot, progress)
            var candidate = current
            let removed = ruin(&candidate, random: &random)
            let again = order(removed + candidate.unassigned.sorted(), rule: Int(random.next() % 4), random: &random)
            candidate.unassigned.subtract(again)
            recreate(&candidate, requests: again, blink: 0.01, random: &random, load: &load)
            let candidateObjective = objective(candidate)
            if Double(candidateObjective) < Double(currentObjective) - temperature * log(max(random.unit(), 1e-12)) {
                current = candidate
                currentObjective = candidateObjective
                if currentObjective < bestObjective {
                    // A new best is polished within its routes, where ruin and recreate rarely looks.
                    polish(&current, load: &load, until: started + options.timeLimit)
                    currentObjective = objective(current)
                    best = current
                    bestObjective = currentObjective
                }
            }
            iterations += 1
        }
        return PlanSolution(
            model: model, routes: best.routes, unassigned: best.unassigned.sorted(), iterations: iterations,
            solvingTime: ContinuousClock.now - started)
    }

    /// Orders requests for reinsertion: at random, farthest from the first rider's start first, tightest window
    /// first, or largest amount first (SISR's sorts). The keys are made once, in `init`: a sort whose comparison
    /// reads the model copies the solver (and retains each of its arrays) per comparison.
    private func order(_ requests: [Int], rule: Int, random: inout PlanRandom) -> [Int] {
        guard rule != 0 else { return requests.shuffled(using: &random) }
        let keys = sortKeys[rule - 1]
        return requests.map { (keys[$0], $0) }.sorted { $0 < $1 }.map(\.1)
    }

    /// Removes strings of consecutive stops around requests near a random one, from a few routes; returns the
    /// requests removed (whole: both stops of a shipment).
    private func ruin(_ state: inout State, random: inout PlanRandom) -> [Int] {
        // Which route holds each stop, read once: the neighbour scan below asks it for many requests.
        var routeOf = Array(repeating: -1, count: model.stopRequest.count)
        var assigned: [Int] = []
        for (vehicle, route) in state.routes.enumerated() {
            for stop in route {
                routeOf[stop] = vehicle
                assigned.append(model.stopRequest[stop])
            }
        }
        guard let seed = assigned.randomElement(using: &random) else { return [] }
        let averageRemoved = 10
        let target = 1 + Int(random.next() % UInt64(min(assigned.count, 2 * averageRemoved)))
        var removed: [Int] = []
        var ruinedRoutes: Set<Int> = []
        for request in [seed] + neighbours[seed] where removed.count < target {
            let vehicle = routeOf[model.requestStops[request][0]]
            guard vehicle >= 0, !ruinedRoutes.contains(vehicle), !removed.contains(request) else { continue }
            ruinedRoutes.insert(vehicle)
            var route = state.routes[vehicle]
            let at = route.firstIndex(of: model.requestStops[request][0])!
            let length = 1 + Int(random.next() % UInt64(min(route.count, 10)))
            let from = max(0, min(at - Int(random.next() % UInt64(length)), route.count - length))
            var taken = Set(route[from..<(from + length)].map { model.stopRequest[$0] })
            taken.insert(request)
            route.removeAll { taken.contains(model.stopRequest[$0]) }
            state.routes[vehicle] = route
            state.costs[vehicle] = model.cost(vehicle: vehicle, route: route)
            removed += taken.sorted()
        }
        return removed
    }

    /// Puts each request where it costs least over all routes, or leaves it unassigned.
    private func recreate(
        _ state: inout State, requests: [Int], blink: Double, random: inout PlanRandom, load: inout [Int]
    ) {
        for request in requests {
            if let insertion = bestInsertion(request, into: state, blink: blink, random: &random, load: &load) {
                state.routes[insertion.vehicle] = insertion.route
                state.costs[insertion.vehicle] += insertion.delta
            } else {
                state.unassigned.insert(request)
            }
        }
    }

    struct Insertion {
        var vehicle: Int
        var route: [Int]
        var delta: Int
    }

    /// The cheapest feasible place for the request: candidate positions by travel-time increase (which is exactly
    /// the cost increase), checked for feasibility in that order until one holds.
    func bestInsertion(
        _ request: Int, into state: State, blink: Double, random: inout PlanRandom, load: inout [Int]
    ) -> Insertion? {
        var best: Insertion?
        let stops = model.requestStops[request]
        var candidates: [(delta: Int, first: Int, second: Int)] = []
        candidates.reserveCapacity(64)
        var pickupAdded: [Int] = []
        var deliveryAdded: [Int] = []
        for vehicle in state.routes.indices where model.allowed[request][vehicle] {
            let route = state.routes[vehicle]
            // What the rider sets out with (every job's delivery) must fit wherever the request goes: a full rider
            // is passed over without trying each position.
            if !model.startLoadFits(vehicle: vehicle, route: route, adding: stops) { continue }
            let start = model.vehicleStart[vehicle]
            let end = model.vehicleEnd[vehicle]
            func location(before position: Int) -> Int {
                position == 0 ? start : model.stopLocation[route[position - 1]]
            }
            func location(at position: Int) -> Int {
                position == route.count ? end : model.stopLocation[route[position]]
            }
            candidates.removeAll(keepingCapacity: true)
            let bound = best?.delta ?? .max
            model.insertionCosts(of: stops[0], vehicle: vehicle, route: route, into: &pickupAdded)
            if stops.count == 1 {
                for position in 0...route.count where pickupAdded[position] < bound {
                    candidates.append((pickupAdded[position], position, -1))
                }
            } else {
                let pickup = model.stopLocation[stops[0]]
                let delivery = model.stopLocation[stops[1]]
                model.insertionCosts(of: stops[1], vehicle: vehicle, route: route, into: &deliveryAdded)
                for first in 0...route.count {
                    for second in first...route.count {
                        let delta: Int
                        if first == second {
                            let before = location(before: first)
                            let after = location(at: first)
                            delta =
                                model.leg(before, pickup) + model.leg(pickup, delivery)
                                + model.leg(delivery, after) - model.leg(before, after)
                        } else {
                            delta = pickupAdded[first] + deliveryAdded[second]
                        }
                        if delta < bound { candidates.append((delta, first, second)) }
                    }
                }
            }
            func tried(_ candidate: (delta: Int, first: Int, second: Int)) -> Bool {
                var changed = route
                if candidate.second < 0 {
                    changed.insert(stops[0], at: candidate.first)
                } else {
                    changed.insert(stops[1], at: candidate.second)
                    changed.insert(stops[0], at: candidate.first)
                }
                guard model.isFeasible(vehicle: vehicle, route: changed, load: &load) else { return false }
                best = Insertion(vehicle: vehicle, route: changed, delta: candidate.delta)
                return true
            }
            guard
                let cheapest = candidates.indices.min(by: {
                    let a = candidates[$0]
                    let b = candidates[$1]
                    return (a.delta, a.first, a.second) < (b.delta, b.first, b.second)
                })
            else { continue }
            // Most often the cheapest place is feasible: try it before sorting the rest.
            let blinked = blink > 0 && random.unit() < blink
            if !blinked && tried(candidates[cheapest]) { continue }
            candidates.swapAt(0, cheapest)
            candidates[1...].sort { ($0.delta, $0.first, $0.second) < ($1.delta, $1.first, $1.second) }
            for candidate in candidates.dropFirst() {
                if candidate.delta >= best?.delta ?? .max { break }
                if blink > 0 && random.unit() < blink { continue }
                if tried(candidate) { break }
            }
        }
        return best
    }
}
