import Foundation
import LogisticsCore
import RoadRouting
import Testing

@testable import LogisticsServer
@testable import TestSupport

@Suite("Map tile cache keeps the tiles in use", .timeLimit(.minutes(3)))
struct TileCacheEvictionTests {
    @Test("a full cache forgets the least recently used entry, and only that one")
    func leastRecentlyUsed() {
        var cache = LeastRecentlyUsed<Int, String>(capacity: 3)
        for key in 1...3 { cache.insert("\(key)", for: key) }
        #expect(cache.value(for: 1) == "1")
        cache.insert("4", for: 4)
        #expect(cache.count == 3)
        #expect(!cache.contains(2))
        #expect(cache.contains(1) && cache.contains(3) && cache.contains(4))
        // Replacing a value counts as a use.
        cache.insert("three", for: 3)
        cache.insert("5", for: 5)
        #expect(!cache.contains(1))
        #expect(cache.value(for: 3) == "three")
        // Many more keys than room: the count stays at the bound and the newest are kept.
        for key in 100..<1100 { cache.insert("\(key)", for: key) }
        #expect(cache.count == 3)
        #expect((1097..<1100).allSatisfy(cache.contains))
        var single = LeastRecentlyUsed<Int, Int>(capacity: 1)
        single.insert(1, for: 1)
        single.insert(2, for: 2)
        #expect(single.count == 1 && single.value(for: 2) == 2 && !single.contains(1))
    }

    @Test("tiles: one more than the cap evicts the tile asked longest ago, not the whole cache")
    func tileCache() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            let tiles = MapTileCache(provider: server.components.navigator.provider, capacity: 3)
            let addresses = (0..<4).map { TileAddress(z: 15, x: 17058 + $0, y: 11948)! }
            for address in addresses.prefix(3) { #expect(tiles.tile(address) != nil) }
            // The first is in use again; the second is now the one asked longest ago.
            _ = tiles.tile(addresses[0])
            _ = tiles.tile(addresses[3])
            #expect(tiles.isCached(addresses[0]))
            #expect(!tiles.isCached(addresses[1]))
            #expect(tiles.isCached(addresses[2]) && tiles.isCached(addresses[3]))
        }
    }
}
