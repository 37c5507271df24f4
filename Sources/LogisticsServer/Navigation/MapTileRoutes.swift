import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import RoadRouting
import Synchronization

/// `GET /map/tiles/{z}/{x}/{y}`: the loaded road map cut into tiles for the web pages' own map (no tile provider,
/// no account). Public, like the tracking page that draws them; cached in memory, with an `ETag`.
struct MapTileRoutes {
    let tiles: MapTileCache

    func register(in routes: inout RouteTable) {
        routes.get("/map/tiles/{z}/{x}/{y}", tile)
    }

    @Sendable func tile(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        var problems: [FieldError] = []
        func number(_ name: String) -> Int? {
            guard let value = context.parameters.get(name).flatMap({ Int($0) }) else {
                problems.append(FieldError(field: name, message: "must be a whole number"))
                return nil
            }
            return value
        }
        let (z, x, y) = (number("z"), number("x"), number("y"))
        guard let z, let x, let y else { throw LogisticsError.validation(problems) }
        guard TileAddress.zoomRange.contains(z), x >= 0, y >= 0, x < 1 << 20, y < 1 << 20 else {
            throw LogisticsError.validation(
                field: TileAddress.zoomRange.contains(z) ? "x" : "z",
                "must address a tile: z in 0...20, x and y in 0..<2^z")
        }
        // Well formed but past the edge of the world at this zoom: there is no such tile.
        guard let address = TileAddress(z: z, x: x, y: y) else {
            throw LogisticsError(
                .notFound, "No tile \(z)/\(x)/\(y): x and y run from 0 to \((1 << z) - 1) at zoom \(z)")
        }
        guard let tile = tiles.tile(address) else {
            throw LogisticsError(.navigationUnavailable, "No road map is loaded (set LOGISTICS_MAP)")
        }
        // Tiles change only when the map does; a day keeps a phone from fetching them again on every visit.
        return tile.response(
            for: request, contentType: "application/json", headers: [.cacheControl: "public, max-age=86400"])
    }
}

/// Tiles cut on first use and kept as encoded JSON, plain and gzipped; past the bound the least recently asked
/// tile makes room, so a crawler walking the world does not empty the cache of the tiles riders use.
final class MapTileCache: Sendable {
    typealias Encoded = CompressedBody

    private let graph: RoadGraph?
    private let tiles: Mutex<RoadTiles?> = Mutex(nil)
    private let cache: Mutex<LeastRecentlyUsed<TileAddress, Encoded>>
    static let maximumCached = 4096

    init(provider: any DirectionsProvider, capacity: Int = maximumCached) {
        cache = Mutex(LeastRecentlyUsed(capacity: capacity))
        graph = provider.tileGraph
    }

    /// The tile, or nil when the server has no map.
    func tile(_ address: TileAddress) -> Encoded? {
        guard let graph else { return nil }
        if let cached = cache.withLock({ $0.value(for: address) }) { return cached }
        let cutter = tiles.withLock { tiles in
            if let tiles { return tiles }
            let made = RoadTiles(graph: graph)
            tiles = made
            return made
        }
        let body = (try? APIJSON.encoder.encode(cutter.tile(address))) ?? Data()
        let encoded = Encoded(body)
        cache.withLock { $0.insert(encoded, for: address) }
        return encoded
    }

    func isCached(_ address: TileAddress) -> Bool { cache.withLock { $0.contains(address) } }
}
