import Foundation
import FuzzSupport
import LogisticsCore
import RoadRouting
import Testing

extension RoadRoutingSuites {
    @Suite("Profiles: oneway streets and turn restrictions")
    struct RoutingRulesTests {
        @Test("oneway=yes ways are driven only forward, oneway=-1 only backward, roundabouts only forward")
        func onewayStreets() async throws {
            var turns = CooperativeTurns()
            let graph = await MonacoFixture.car.graph
            var checked = (forward: 0, reverse: 0, roundabout: 0)
            for way in await OSMTagCollector.monaco.ways.values {
                await turns.pass()
                guard let rules = RoutingProfile(.car).rules(for: way.tags), rules.forward != rules.backward else {
                    continue
                }
                for (a, b) in zip(way.nodeIds, way.nodeIds.dropFirst()) {
                    await turns.pass()
                    guard let from = graph.node(osm: a), let to = graph.node(osm: b) else { continue }
                    #expect(graph.hasArc(from: from, to: to, osmWay: way.id) == rules.forward, "way \(way.id)")
                    #expect(graph.hasArc(from: to, to: from, osmWay: way.id) == rules.backward, "way \(way.id)")
                    switch (way.tags["oneway"], rules.isRoundabout) {
                    case ("-1", _): checked.reverse += 1
                    case (_, true): checked.roundabout += 1
                    default: checked.forward += 1
                    }
                }
            }
            #expect(checked.forward > 100)
            #expect(checked.roundabout > 20)
            // A route between the two ends of a one-way segment, against its direction, takes a detour.
            let way = try #require(
                await OSMTagCollector.monaco.ways.values.sorted { $0.id < $1.id }.first {
                    $0.tags["oneway"] == "yes" && RoutingProfile(.car).rules(for: $0.tags) != nil
                        && $0.nodeIds.count == 2
                        && graph.node(osm: $0.nodeIds[0]).map { graph.isInMainComponent[Int($0)] } == true
                })
            let a = try #require(graph.node(osm: way.nodeIds[0]))
            let b = try #require(graph.node(osm: way.nodeIds[1]))
            let dijkstra = DijkstraSearch(graph: graph, metric: .distance)
            let along = try #require(
                dijkstra.shortestPath(from: [.init(node: a, cost: 0)], to: [.init(node: b, cost: 0)]))
            let against = try #require(
                dijkstra.shortestPath(from: [.init(node: b, cost: 0)], to: [.init(node: a, cost: 0)]))
            #expect(against.cost > along.cost)
            #expect(against.arcs.count > 1)
        }

        @Test("access=private and foot-only ways are not routable; motorcycles may use tracks, cars may not")
        func accessRules() async {
            let car = RoutingProfile(.car)
            let motorcycle = RoutingProfile(.motorcycle)
            #expect(car.rules(for: ["highway": "residential", "access": "private"]) == nil)
            #expect(car.rules(for: ["highway": "residential", "access": "private", "motorcar": "yes"]) != nil)
            #expect(car.rules(for: ["highway": "residential", "motor_vehicle": "no"]) == nil)
            #expect(motorcycle.rules(for: ["highway": "residential", "motorcycle": "no"]) == nil)
            #expect(car.rules(for: ["highway": "residential", "motorcycle": "no"]) != nil)
            #expect(car.rules(for: ["highway": "footway"]) == nil)
            #expect(car.rules(for: ["highway": "track"]) == nil)
            #expect(motorcycle.rules(for: ["highway": "track"]) != nil)
            #expect(car.rules(for: ["highway": "primary", "maxspeed": "30"])?.speedKmh == 27)
            #expect(
                car.restriction(from: ["type": "restriction", "restriction": "no_left_turn", "except": "motorcar"])
                    == nil)
            #expect(car.restriction(from: ["type": "restriction", "restriction": "only_straight_on"]) == .mandatory)
        }

        @Test("a no_* restriction of the extract is honoured: the forbidden turn is never taken")
        func restrictionHonoured() async throws {
            let restricted = await MonacoFixture.car
            let unrestricted = await MonacoFixture.carWithoutRestrictions
            let ways = await OSMTagCollector.monaco.ways
            var detoursSeen = 0
            var turnsChecked = 0
            for relation in await OSMTagCollector.monaco.restrictions {
                guard RoutingProfile(.car).restriction(from: relation.tags) == .forbidden,
                    let from = relation.members.first(where: { $0.role == "from" }).flatMap({ ways[$0.id] }),
                    let to = relation.members.first(where: { $0.role == "to" }).flatMap({ ways[$0.id] }),
                    let via = relation.members.first(where: { $0.role == "via" && $0.type == .node })?.id,
                    let before = Self.neighbour(of: via, on: from), let after = Self.neighbour(of: via, on: to),
                    let a = restricted.graph.node(osm: before), let v = restricted.graph.node(osm: via),
                    let b = restricted.graph.node(osm: after)
                else { continue }
                let search = DijkstraSearch(graph: restricted.graph, metric: .distance)
                guard let path = search.shortestPath(from: [.init(node: a, cost: 0)], to: [.init(node: b, cost: 0)])
                else {
                    continue
                }
                turnsChecked += 1
                let nodes = [a] + path.arcs.map { restricted.graph.originalNode[Int(restricted.graph.arcTarget[$0])] }
                let forbidden = zip(zip(nodes, nodes.dropFirst()), nodes.dropFirst(2)).contains { pair, next in
                    pair.0 == a && pair.1 == v && next == b
                }
                #expect(!forbidden, "restriction \(relation.id) turn taken")
                // Where the unrestricted graph takes the turn directly, the restricted route must be a longer detour.
                let plain = DijkstraSearch(graph: unrestricted.graph, metric: .distance)
                let ua = try #require(unrestricted.graph.node(osm: before))
                let ub = try #require(unrestricted.graph.node(osm: after))
                if let direct = plain.shortestPath(from: [.init(node: ua, cost: 0)], to: [.init(node: ub, cost: 0)]),
                    direct.arcs.count == 2
                {
                    detoursSeen += 1
                    #expect(path.cost > direct.cost, "restriction \(relation.id)")
                }
            }
            #expect(turnsChecked >= 3)
            #expect(detoursSeen >= 1)
        }

        @Test("positions far from any road are refused with the distance limit; near ones report the snap distance")
        func snapping() async throws {
            let planner = RoutePlanner(map: await MonacoFixture.motorcycle, maxSnapDistanceM: 300)
            let sea = GeoPoint(lat: 43.70, lon: 7.46)
            #expect(throws: RoutingError.notNearRoad(field: "to", point: sea, limitM: 300)) {
                _ = try planner.route(RouteRequest(from: GeoPoint(lat: 43.7396, lon: 7.4276), to: sea), now: Date())
            }
            let route = try planner.route(
                RouteRequest(from: GeoPoint(lat: 43.7396, lon: 7.4276), to: GeoPoint(lat: 43.7289, lon: 7.4170)),
                now: Date())
            #expect(route.waypoints.count == 2)
            #expect(route.waypoints[0].snapDistanceM < 10)
            // Fontvieille's landmark point is inside a block; the nearest road is ~70 m away.
            #expect(route.waypoints[1].snapDistanceM < 100)
        }

        /// The node next to `via` on a way that starts or ends there.
        static func neighbour(of via: Int64, on way: OSMWay) -> Int64? {
            if way.nodeIds.first == via, way.nodeIds.count > 1 { return way.nodeIds[1] }
            if way.nodeIds.last == via, way.nodeIds.count > 1 { return way.nodeIds[way.nodeIds.count - 2] }
            return nil
        }
    }
}
