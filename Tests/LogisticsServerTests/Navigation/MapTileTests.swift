import Foundation
import LogisticsCore
import RoadRouting
import Testing

@testable import TestSupport

/// The road map as tiles for the web pages, cut from the graph the server loaded.
@Suite("Map tiles", .timeLimit(.minutes(3)))
struct MapTileTests {
    /// The tile holding a position at a zoom (the slippy-map formula, written out here independently).
    static func tile(_ lat: Double, _ lon: Double, z: Int) -> (x: Int, y: Int) {
        let n = pow(2, Double(z))
        let rad = lat * .pi / 180
        return (Int((lon + 180) / 360 * n), Int((1 - asinh(tan(rad)) / .pi) / 2 * n))
    }

    /// The tile's bounds in degrees.
    static func bounds(z: Int, x: Int, y: Int) -> (north: Double, south: Double, west: Double, east: Double) {
        let n = pow(2, Double(z))
        func lat(_ y: Double) -> Double { atan(sinh(.pi * (1 - 2 * y / n))) * 180 / .pi }
        return (lat(Double(y)), lat(Double(y + 1)), Double(x) / n * 360 - 180, Double(x + 1) / n * 360 - 180)
    }

    @Test(
        "a zoom-15 tile of Monaco holds the named roads of its box; the sea has no roads; bad addresses are 400, missing ones 404"
    )
    func monacoTile() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let (x, y) = Self.tile(43.7396, 7.4276, z: 15)
            let reply = try await server.send(.get, "/map/tiles/15/\(x)/\(y)")
            #expect(reply.status == 200)
            #expect(reply.contentType == "application/json")
            #expect(reply.headers[.cacheControl] == "public, max-age=86400")
            let roads = try #require(reply["roads"] as? [[String: Any]])
            #expect(reply["extent"] as? Int == 4096)
            let names = Set(roads.compactMap { $0["name"] as? String })

            // Every named road with a piece wholly inside the box, straight from the graph the server loaded.
            let map = try RoadMapLoader.load(
                path: MapFixture.pbfPath, profile: .motorcycle, cacheDirectory: await MapFixture.cacheDirectory)
            let graph = map.graph
            let box = Self.bounds(z: 15, x: x, y: y)
            func inside(_ node: Int32) -> Bool {
                let point = graph.coordinate(node)
                return point.lat <= box.north && point.lat >= box.south && point.lon >= box.west
                    && point.lon <= box.east
            }
            var expected: Set<String> = []
            for node in 0..<Int32(graph.nodeCount) where inside(node) {
                for arc in graph.arcs(from: node) where inside(graph.arcTarget[arc]) {
                    let name = graph.name(ofWay: graph.arcWay[arc])
                    if !name.isEmpty { expected.insert(name) }
                }
            }
            #expect(expected.count >= 5)
            #expect(expected.isSubset(of: names), "missing: \(expected.subtracting(names))")
            for road in roads {
                for line in road["lines"] as? [[Int]] ?? [] {
                    #expect(line.count >= 4 && line.count % 2 == 0)
                    #expect(line.allSatisfy { (-512...4608).contains($0) }, "points stay near the tile")
                }
            }

            let etag = try #require(reply.headers[.eTag])
            let again = try await server.send(.get, "/map/tiles/15/\(x)/\(y)", headers: ["If-None-Match": etag])
            #expect(again.status == 304)
            #expect(reply.headers[.contentEncoding] == nil, "plain for a client that did not ask for gzip")

            let zipped = try await server.send(
                .get, "/map/tiles/15/\(x)/\(y)", headers: ["Accept-Encoding": "br;q=1, gzip;q=0.8"])
            #expect(zipped.headers[.contentEncoding] == "gzip")
            #expect(zipped.headers[.vary] == "Accept-Encoding")
            #expect(Array(zipped.body.prefix(2)) == [0x1f, 0x8b], "a gzip stream")
            #expect(zipped.body.count * 2 < reply.body.count, "\(zipped.body.count) of \(reply.body.count) bytes")
            #expect(zipped.headers[.eTag] != etag, "each representation has its own validator")
            let refused = try await server.send(
                .get, "/map/tiles/15/\(x)/\(y)", headers: ["Accept-Encoding": "gzip;q=0, identity"])
            #expect(refused.headers[.contentEncoding] == nil)
            let zippedAgain = try await server.send(
                .get, "/map/tiles/15/\(x)/\(y)",
                headers: ["Accept-Encoding": "gzip", "If-None-Match": zipped.headers[.eTag] ?? ""])
            #expect(zippedAgain.status == 304)

            let (seaX, seaY) = Self.tile(43.70, 7.47, z: 15)
            let sea = try await server.send(.get, "/map/tiles/15/\(seaX)/\(seaY)")
            #expect(sea.status == 200)
            #expect((sea["roads"] as? [Any])?.isEmpty == true)
            #expect(sea["sea"] as? [[Int]] == [[0, 0, 0, 4096, 4096, 4096, 4096, 0]], "open sea is all sea")

            // The harbour: the coastline drawn and the water filled; inland, no sea.
            let (portX, portY) = Self.tile(43.7350, 7.4225, z: 16)
            let port = try await server.send(.get, "/map/tiles/16/\(portX)/\(portY)")
            #expect((port["coast"] as? [[Int]])?.isEmpty == false)
            #expect(((port["sea"] as? [[Int]])?.count ?? 0) >= 2, "the tile minus the land")
            let (hillX, hillY) = Self.tile(43.7450, 7.4150, z: 16)
            let hill = try await server.send(.get, "/map/tiles/16/\(hillX)/\(hillY)")
            #expect((hill["sea"] as? [[Int]])?.isEmpty == true)
            #expect((hill["coast"] as? [[Int]])?.isEmpty == true)

            // Zoomed out, small streets are left out but the main roads stay.
            let (farX, farY) = Self.tile(43.7396, 7.4276, z: 12)
            let far = try await server.send(.get, "/map/tiles/12/\(farX)/\(farY)")
            let farRoads = try #require(far["roads"] as? [[String: Any]])
            #expect(!farRoads.isEmpty)
            #expect(farRoads.allSatisfy { !["minor", "service"].contains($0["class"] as? String ?? "") })

            for path in ["/map/tiles/21/0/0", "/map/tiles/15/1048576/0", "/map/tiles/15/0/-1", "/map/tiles/a/1/1"] {
                let bad = try await server.send(.get, path)
                #expect(bad.status == 400, "\(path)")
                #expect(bad.code == "VALIDATION_FAILED")
                #expect(bad.contentType == "application/problem+json")
            }
            // Well formed, as the OpenAPI document allows, but past the world's edge at that zoom.
            for path in ["/map/tiles/15/32768/0", "/map/tiles/0/0/1"] {
                let missing = try await server.send(.get, path)
                #expect(missing.status == 404 && missing.code == "NOT_FOUND", "\(path)")
            }
        }
    }

    @Test("without a map, tiles answer 503 NAVIGATION_UNAVAILABLE")
    func noMap() async throws {
        try await TestServer.run(.sqlite) { server in
            let reply = try await server.send(.get, "/map/tiles/15/17054/11948")
            #expect(reply.status == 503)
            #expect(reply.code == "NAVIGATION_UNAVAILABLE")
        }
    }
}
