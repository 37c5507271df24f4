import Foundation
import LogisticsCore
import RoadRouting
import Testing

extension RoadRoutingSuites {
    @Suite("Travel matrices")
    struct TravelTableTests {
        /// Positions spread over Monaco's box, some on roads, some in between, a few out at sea.
        static func positions(_ count: Int, seed: UInt64) -> [GeoPoint] {
            var generator = SeededGenerator(state: seed)
            return (0..<count).map { _ in
                GeoPoint(
                    lat: Double.random(in: 43.725...43.750, using: &generator),
                    lon: Double.random(in: 7.405...7.440, using: &generator))
            }
        }

        @Test("every cell equals the route planner's fastest route between the same two positions")
        func cellsEqualRoutes() async throws {
            let planner = RoutePlanner(map: await MonacoFixture.motorcycle, maxSnapDistanceM: 300)
            let sources = Self.positions(25, seed: 7)
            let destinations = Self.positions(30, seed: 8)
            let table = try planner.table(from: sources, to: destinations)
            #expect(table.durationsS.count == 25 && table.durationsS.allSatisfy { $0.count == 30 })
            var compared = 0
            var mismatches: [String] = []
            for (row, source) in sources.enumerated() {
                for (column, destination) in destinations.enumerated() {
                    let route = try? planner.route(RouteRequest(from: source, to: destination), now: Date())
                    let duration = table.durationsS[row][column]
                    let distance = table.distancesM[row][column]
                    guard let route else {
                        if duration != nil { mismatches.append("\(row)→\(column): no route, table \(duration!)") }
                        continue
                    }
                    compared += 1
                    guard let duration, let distance else {
                        mismatches.append("\(row)→\(column): route \(route.durationS) s, table nil")
                        continue
                    }
                    // The planner narrates from float durations; the table adds the integer milliseconds it searched.
                    if abs(duration - route.durationS) > 0.5 + route.durationS * 0.001
                        || abs(distance - route.distanceM) > 1 + route.distanceM * 0.001
                    {
                        mismatches.append(
                            "\(row)→\(column): route \(route.durationS) s \(route.distanceM) m, table \(duration) s \(distance) m"
                        )
                    }
                }
            }
            #expect(compared > 500, "only \(compared) routable pairs")
            #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
        }

        @Test("a position far from any road has a row (or column) of nils and is named; the others are unaffected")
        func unroutablePositions() async throws {
            let planner = RoutePlanner(map: await MonacoFixture.motorcycle, maxSnapDistanceM: 300)
            let sea = GeoPoint(lat: 43.70, lon: 7.45)
            let casino = GeoPoint(lat: 43.7396, lon: 7.4277)
            let port = GeoPoint(lat: 43.7347, lon: 7.4206)
            let table = try planner.table(from: [casino, sea], to: [port, sea, casino])
            #expect(table.unroutableSources == [1])
            #expect(table.unroutableDestinations == [1])
            #expect(table.durationsS[1].allSatisfy { $0 == nil })
            #expect(table.durationsS[0][1] == nil)
            #expect((table.durationsS[0][0] ?? 0) > 30)
            #expect(table.durationsS[0][2] ?? 99 < 5, "a position to itself is (almost) nothing")
        }
    }
}
