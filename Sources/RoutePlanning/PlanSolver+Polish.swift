/// The local search that polishes a plan: stops relocated between routes and route tails exchanged, then 2-opt and
/// or-opt within each route, while a move saves travel.
extension PlanSolver {
    /// Between routes, the best relocation of one stop or exchange of two routes' tails (2-opt*) while one saves
    /// travel (until the budget ends); then within each route 2-opt (reverse a stretch) and or-opt (move a stretch of
    /// up to three stops elsewhere) while either shortens the route and keeps it feasible. Costs are recomputed
    /// whole, as road times are asymmetric. Only for problems without shipments: a reversal or a move could put a
    /// delivery before its pickup.
    func polish(_ state: inout State, load: inout [Int], until deadline: ContinuousClock.Instant) {
        guard !hasShipments else { return }
        var rounds = 0
        while rounds < 100, ContinuousClock.now < deadline,
            relocateBetweenRoutes(&state, load: &load) || exchangeTails(&state, load: &load)
        {
            rounds += 1
        }
        for vehicle in state.routes.indices where state.routes[vehicle].count > 2 {
            var route = state.routes[vehicle]
            var cost = state.costs[vehicle]
            var improved = true
            while improved {
                improved = false
                for candidate in neighbourRoutes(of: route) {
                    let candidateCost = model.cost(vehicle: vehicle, route: candidate)
                    if candidateCost < cost && model.isFeasible(vehicle: vehicle, route: candidate, load: &load) {
                        route = candidate
                        cost = candidateCost
                        improved = true
                        break
                    }
                }
            }
            state.routes[vehicle] = route
            state.costs[vehicle] = cost
        }
    }

    /// Moves one stop to the place in another route that saves most travel, if any saves some and both routes stay
    /// feasible; true when a move was made.
    func relocateBetweenRoutes(_ state: inout State, load: inout [Int]) -> Bool {
        var added: [Int] = []
        var bestMove: (gain: Int, from: Int, at: Int, to: Int, position: Int)?
        var routeOf = Array(repeating: -1, count: model.stopRequest.count)
        for (vehicle, route) in state.routes.enumerated() { for stop in route { routeOf[stop] = vehicle } }
        for from in state.routes.indices {
            let route = state.routes[from]
            for (at, stop) in route.enumerated() {
                let before = at == 0 ? model.vehicleStart[from] : model.stopLocation[route[at - 1]]
                let after = at == route.count - 1 ? model.vehicleEnd[from] : model.stopLocation[route[at + 1]]
                let place = model.stopLocation[stop]
                let saved = model.leg(before, place) + model.leg(place, after) - model.leg(before, after)
                let request = model.stopRequest[stop]
                // Only routes that hold one of the request's nearest neighbours (a granular neighbourhood, as in
                // Toth & Vigo): a stop rarely belongs far from all of them, and big plans stay quick to polish.
                var targets = Set<Int>()
                for neighbour in neighbours[request].prefix(10) {
                    let vehicle = routeOf[model.requestStops[neighbour][0]]
                    if vehicle >= 0 && vehicle != from { targets.insert(vehicle) }
                }
                for to in targets.sorted() where model.allowed[request][to] {
                    if !model.startLoadFits(vehicle: to, route: state.routes[to], adding: [stop]) { continue }
                    model.insertionCosts(of: stop, vehicle: to, route: state.routes[to], into: &added)
                    for (position, cost) in added.enumerated() where saved - cost > (bestMove?.gain ?? 0) {
                        var shorter = route
                        shorter.remove(at: at)
                        var longer = state.routes[to]
                        longer.insert(stop, at: position)
                        if model.isFeasible(vehicle: to, route: longer, load: &load),
                            model.isFeasible(vehicle: from, route: shorter, load: &load)
                        {
                            bestMove = (saved - cost, from, at, to, position)
                        }
                    }
                }
            }
        }
        guard let move = bestMove else { return false }
        let stop = state.routes[move.from].remove(at: move.at)
        state.routes[move.to].insert(stop, at: move.position)
        for vehicle in [move.from, move.to] {
            state.costs[vehicle] = model.cost(vehicle: vehicle, route: state.routes[vehicle])
        }
        return true
    }

    /// 2-opt*: two routes swap their tails (each keeps its direction) where that saves most travel and both stay
    /// feasible; true when a swap was made.
    func exchangeTails(_ state: inout State, load: inout [Int]) -> Bool {
        var bestSwap: (gain: Int, first: Int, cut: Int, second: Int, otherCut: Int)?
        for first in state.routes.indices {
            for second in state.routes.indices where second > first {
                let a = state.routes[first]
                let b = state.routes[second]
                // Cut after `cut` stops of a and `otherCut` of b; the tails swap.
                for cut in 0...a.count {
                    let aBefore = cut == 0 ? model.vehicleStart[first] : model.stopLocation[a[cut - 1]]
                    let aAfter = cut == a.count ? model.vehicleEnd[first] : model.stopLocation[a[cut]]
                    for otherCut in 0...b.count where !(cut == 0 && otherCut == 0) {
                        if cut == a.count && otherCut == b.count { continue }
                        let bBefore = otherCut == 0 ? model.vehicleStart[second] : model.stopLocation[b[otherCut - 1]]
                        let bAfter = otherCut == b.count ? model.vehicleEnd[second] : model.stopLocation[b[otherCut]]
                        let aNext = otherCut == b.count ? model.vehicleEnd[first] : bAfter
                        let bNext = cut == a.count ? model.vehicleEnd[second] : aAfter
                        let gain =
                            model.leg(aBefore, aAfter) + model.leg(bBefore, bAfter) - model.leg(aBefore, aNext)
                            - model.leg(bBefore, bNext)
                        guard gain > (bestSwap?.gain ?? 0) else { continue }
                        let newA = Array(a[..<cut] + b[otherCut...])
                        let newB = Array(b[..<otherCut] + a[cut...])
                        guard newA.allSatisfy({ model.allowed[model.stopRequest[$0]][first] }),
                            newB.allSatisfy({ model.allowed[model.stopRequest[$0]][second] }),
                            model.isFeasible(vehicle: first, route: newA, load: &load),
                            model.isFeasible(vehicle: second, route: newB, load: &load)
                        else { continue }
                        // The legs' sum is exact only when both riders end at the same place; check the whole cost.
                        let exact =
                            state.costs[first] + state.costs[second] - model.cost(vehicle: first, route: newA)
                            - model.cost(vehicle: second, route: newB)
                        if exact > (bestSwap?.gain ?? 0) { bestSwap = (exact, first, cut, second, otherCut) }
                    }
                }
            }
        }
        guard let swap = bestSwap else { return false }
        let a = state.routes[swap.first]
        let b = state.routes[swap.second]
        state.routes[swap.first] = Array(a[..<swap.cut] + b[swap.otherCut...])
        state.routes[swap.second] = Array(b[..<swap.otherCut] + a[swap.cut...])
        for vehicle in [swap.first, swap.second] {
            state.costs[vehicle] = model.cost(vehicle: vehicle, route: state.routes[vehicle])
        }
        return true
    }

    /// The 2-opt and or-opt neighbours of a route, in a fixed order.
    func neighbourRoutes(of route: [Int]) -> some Sequence<[Int]> {
        let count = route.count
        let reversals = (0..<count).lazy.flatMap { from in
            ((from + 1)..<count).lazy.map { to in
                var changed = route
                changed[from...to].reverse()
                return changed
            }
        }
        let moves = (1...min(3, count - 1)).lazy.flatMap { length in
            (0...(count - length)).lazy.flatMap { from in
                (0...(count - length)).lazy.filter { $0 != from }.map { to in
                    var changed = route
                    let stretch = Array(changed[from..<(from + length)])
                    changed.removeSubrange(from..<(from + length))
                    changed.insert(contentsOf: stretch, at: to)
                    return changed
                }
            }
        }
        return [AnySequence(reversals), AnySequence(moves)].joined()
    }
}
