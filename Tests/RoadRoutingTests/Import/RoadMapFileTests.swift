import Foundation
import LogisticsCore
import RoadRouting
import Testing
import Threads

extension RoadRoutingSuites {
    @Suite("Prepared graph files and live traffic")
    struct RoadMapFileTests {
        @Test("a saved graph loads back and answers the same routes; damaged files are refused with a clear error")
        func roundTrip() async throws {
            let map = await MonacoFixture.motorcycle
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("monaco-\(UUID()).graph").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try RoadMapFile.write(map, to: path)
            let loaded = try RoadMapFile.read(from: path)
            #expect(loaded.graph.nodeCount == map.graph.nodeCount)
            #expect(loaded.graph.names == map.graph.names)
            #expect(loaded.graph.coastline == map.graph.coastline)
            #expect(map.graph.coastline.lineCount >= 1, "Monaco's extract has its coastline")
            let request = RouteRequest(
                from: GeoPoint(lat: 43.7396, lon: 7.4276), to: GeoPoint(lat: 43.7503, lon: 7.4395))
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            #expect(
                try RoutePlanner(map: loaded).route(request, now: now)
                    == RoutePlanner(map: map).route(request, now: now))

            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(throws: MapImportError.self) {
                _ = try RoadMapFile.read(bytes: Array(bytes.prefix(bytes.count / 2)))
            }
            #expect(throws: MapImportError.self) { _ = try RoadMapFile.read(bytes: Array("RLGRAPH\0garbage".utf8)) }
            var otherVersion = bytes
            otherVersion[8] = 99
            #expect(throws: MapImportError.self) { _ = try RoadMapFile.read(bytes: otherVersion) }
            // A damaged index inside an array is caught by the bounds checks, not by a crash later.
            var damaged = bytes
            for index in stride(from: bytes.count / 3, to: bytes.count / 3 + 400, by: 1) { damaged[index] = 0xFF }
            #expect(throws: MapImportError.self) { _ = try RoadMapFile.read(bytes: damaged) }
        }

        @Test("fixes moving slowly along a road raise its congestion and ETA; stale speeds expire to free flow")
        func liveTraffic() async throws {
            // A map of its own (the test writes traffic into it), contracted off the cooperative pool.
            let map = try await OwnThread.run {
                try RoadMapLoader.prepare(pbf: MonacoFixture.pbfPath, profile: .motorcycle)
            }
            let planner = RoutePlanner(map: map)
            let request = RouteRequest(
                from: GeoPoint(lat: 43.7396, lon: 7.4276), to: GeoPoint(lat: 43.7289, lon: 7.4170))
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let freeFlow = try planner.route(request, now: now)
            #expect(freeFlow.congestion.allSatisfy { $0 == "UNKNOWN" })
            #expect(freeFlow.dataAgeS == nil)

            // Riders crawl at 2 m/s along every segment of the route, as their phones report it.
            let points = try #require(Polyline.decode(freeFlow.geometry))
            var matched = 0
            for (a, b) in zip(points, points.dropFirst()) where a.distanceM(to: b) > 2 {
                let middle = GeoPoint(lat: (a.lat + b.lat) / 2, lon: (a.lon + b.lon) / 2, accuracyM: 5)
                let heading = Bearing.degrees(from: a, to: b)
                if map.traffic.record(
                    position: middle, speedMps: 2, headingDeg: heading, recordedAt: now.addingTimeInterval(-30))
                    != nil
                {
                    matched += 1
                }
            }
            #expect(matched > points.count / 2)
            let congested = try planner.route(request, now: now)
            #expect(congested.durationS > freeFlow.durationS * 2)
            #expect(congested.congestion.filter { $0 == "SEVERE" || $0 == "HEAVY" }.count >= matched / 2)
            #expect(congested.dataAgeS == 30)

            // A parked rider (speed below walking pace) says nothing about traffic.
            #expect(
                map.traffic.record(position: points[1], speedMps: 0.2, headingDeg: 0, recordedAt: now) == nil)
            // Ten minutes later the observations have expired.
            let later = try planner.route(request, now: now.addingTimeInterval(700))
            #expect(later.congestion.allSatisfy { $0 == "UNKNOWN" })
            #expect(abs(later.durationS - freeFlow.durationS) < 0.5)
        }
    }
}
