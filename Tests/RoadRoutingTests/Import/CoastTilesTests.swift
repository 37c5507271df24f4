import Foundation
import FuzzSupport
import Testing

@testable import RoadRouting

/// The sea on the map tiles, from coastlines drawn the OpenStreetMap way (land on the left).
extension RoadRoutingSuites {
    @Suite("Coast and sea in map tiles")
    struct CoastTilesTests {
        static let address = TileAddress(z: 15, x: 17059, y: 11948)!
        static let extent = 4096

        /// A position at fractions of the test tile (0,0 its top-left corner, 1,1 its bottom-right).
        static func at(_ fx: Double, _ fy: Double) -> (latE7: Int32, lonE7: Int32) {
            let z = Double(address.z)
            let lon = (Double(address.x) + fx) / pow(2, z) * 360 - 180
            let lat = TileAddress.latitude(y: Double(address.y) + fy, z: address.z)
            return (Int32((lat * 1e7).rounded()), Int32((lon * 1e7).rounded()))
        }

        static func cut(_ lines: [[(Double, Double)]], address: TileAddress = address) -> (coast: [[Int]], sea: [[Int]])
        {
            var coastline = Coastline()
            for line in lines { coastline.append(line: line.map { at($0.0, $0.1) }) }
            return CoastTiles(coastline: coastline).cut(address, extent: extent)
        }

        /// Even-odd: inside an odd number of the rings.
        static func isSea(_ sea: [[Int]], _ fx: Double, _ fy: Double) -> Bool {
            let x = fx * Double(extent)
            let y = fy * Double(extent)
            var inside = false
            for ring in sea {
                let count = ring.count / 2
                for i in 0..<count {
                    let (ax, ay) = (Double(ring[2 * i]), Double(ring[2 * i + 1]))
                    let j = (i + count - 1) % count
                    let (bx, by) = (Double(ring[2 * j]), Double(ring[2 * j + 1]))
                    if (ay > y) != (by > y), x < (bx - ax) * (y - ay) / (by - ay) + ax { inside.toggle() }
                }
            }
            return inside
        }

        @Test("a coast running east has the land north of it and the sea south; running west, the other way round")
        func sides() {
            let east = Self.cut([[(-0.5, 0.5), (0.3, 0.45), (0.7, 0.55), (1.5, 0.5)]])
            #expect(east.coast.count == 1)
            #expect(Self.isSea(east.sea, 0.5, 0.9) && Self.isSea(east.sea, 0.05, 0.95))
            #expect(!Self.isSea(east.sea, 0.5, 0.1) && !Self.isSea(east.sea, 0.95, 0.05))

            let west = Self.cut([[(1.5, 0.5), (0.7, 0.55), (0.3, 0.45), (-0.5, 0.5)]])
            #expect(Self.isSea(west.sea, 0.5, 0.1) && !Self.isSea(west.sea, 0.5, 0.9))
        }

        @Test(
            "a bay crossing two edges, and a coast entering and leaving by the same edge, close along the tile's edge")
        func corners() {
            // In from the top edge, turning east out of the right edge: the land on its left is the top-right corner.
            let corner = Self.cut([[(0.5, -0.5), (0.5, 0.5), (1.5, 0.5)]])
            #expect(Self.isSea(corner.sea, 0.25, 0.75))
            #expect(!Self.isSea(corner.sea, 0.75, 0.25))
            // A peninsula poking in from the bottom edge and back out of it, anticlockwise: land inside the loop.
            let peninsula = Self.cut([[(0.3, 1.5), (0.3, 0.4), (0.7, 0.4), (0.7, 1.5)].reversed()])
            #expect(Self.isSea(peninsula.sea, 0.5, 0.2))
            #expect(Self.isSea(peninsula.sea, 0.1, 0.9))
            #expect(!Self.isSea(peninsula.sea, 0.5, 0.8))
        }

        @Test("an island inside the tile is land in the sea; tiles no coast crosses are wholly sea or wholly land")
        func islandsAndWholeTiles() {
            let island = [(0.4, 0.4), (0.4, 0.6), (0.6, 0.6), (0.6, 0.4), (0.4, 0.4)]  // anticlockwise on the map
            let cut = Self.cut([island])
            #expect(cut.coast.count == 1)
            #expect(!Self.isSea(cut.sea, 0.5, 0.5))
            #expect(Self.isSea(cut.sea, 0.1, 0.1))

            // An island larger than the tile, its loop starting inside it: cut from outside, the tile's middle is land.
            let bigIsland = [(0.5, 0.2), (-0.5, 0.2), (-0.5, 1.5), (1.5, 1.5), (1.5, 0.2), (0.5, 0.2)]
            let big = Self.cut([bigIsland])
            #expect(!Self.isSea(big.sea, 0.5, 0.6))
            #expect(Self.isSea(big.sea, 0.5, 0.1))
            let fromOutside = Self.cut([Array(bigIsland[1...]) + [bigIsland[1]]])  // the same loop, starting outside
            #expect(!Self.isSea(fromOutside.sea, 0.5, 0.6))
            #expect(Self.isSea(fromOutside.sea, 0.5, 0.1))

            let coast = [[(-3.0, 0.5), (4.0, 0.5)]]
            let south = TileAddress(z: 15, x: Self.address.x, y: Self.address.y + 2)!
            let north = TileAddress(z: 15, x: Self.address.x, y: Self.address.y - 2)!
            #expect(Self.cut(coast, address: south).sea == [[0, 0, 0, 4096, 4096, 4096, 4096, 0]])
            #expect(Self.cut(coast, address: north).sea.isEmpty)
            let farOut = TileAddress(z: 15, x: Self.address.x, y: Self.address.y + 40)!
            #expect(Self.cut(coast, address: farOut).sea.count == 1, "kilometres out, still the sea")
        }

        @Test("where the extract's coast stops inside a tile, the line is drawn but no sea is guessed")
        func danglingCoast() {
            let cut = Self.cut([[(-0.5, 0.5), (0.5, 0.5)]])
            #expect(cut.coast.count == 1)
            #expect(cut.sea.isEmpty)
        }

        @Test("tile lines lose the points nobody could see (under half a pixel off), and keep the rest")
        func simplification() {
            let straight = [0, 0, 100, 1, 200, 0, 300, 2, 400, 0]
            #expect(LineSimplifier.simplify(straight, tolerance: 4) == [0, 0, 400, 0])
            let zigzag = [0, 0, 100, 50, 200, 0, 300, 50, 400, 0]
            #expect(LineSimplifier.simplify(zigzag, tolerance: 4) == zigzag)
            let corner = [0, 0, 50, 1, 100, 0, 100, 50, 101, 100]
            #expect(LineSimplifier.simplify(corner, tolerance: 4) == [0, 0, 100, 0, 101, 100])
            #expect(LineSimplifier.simplify([5, 5, 9, 9], tolerance: 4) == [5, 5, 9, 9])
        }

        @Test("every tile over Monaco, zoom 11 to 17, cuts without failing; rings are closed shapes inside the tile")
        func everyMonacoTile() async {
            var turns = CooperativeTurns()
            let tiles = RoadTiles(graph: await MonacoFixture.motorcycle.graph)
            var withSea = 0
            for z in 11...17 {
                await turns.pass()
                let (west, north) = TileAddress.world(43.7600, 7.3900, z: z)
                let (east, south) = TileAddress.world(43.7150, 7.4500, z: z)
                for x in Int(west)...Int(east) {
                    await turns.pass()
                    for y in Int(north)...Int(south) {
                        await turns.pass()
                        let tile = tiles.tile(TileAddress(z: z, x: x, y: y)!)
                        for ring in tile.sea {
                            await turns.pass()
                            #expect(ring.count >= 6 && ring.count % 2 == 0)
                            #expect(ring.allSatisfy { (0...4096).contains($0) })
                        }
                        if !tile.sea.isEmpty { withSea += 1 }
                    }
                }
            }
            #expect(withSea > 10)
        }
    }
}
