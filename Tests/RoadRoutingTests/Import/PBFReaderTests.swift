import Foundation
import LogisticsCore
import RoadRouting
import Testing

extension RoadRoutingSuites {
    @Suite("OpenStreetMap PBF reader")
    struct PBFReaderTests {
        @Test("Monaco element counts match osmium fileinfo -e")
        func monacoCounts() throws {
            // `osmium fileinfo -e monaco.osm.pbf`: 180,118 nodes, 27,377 ways, 212 relations.
            let reader = try PBFReader(path: MonacoFixture.pbfPath)
            var counts = OSMElementCounts()
            try reader.read(into: &counts)
            #expect(counts == OSMElementCounts(nodes: 180_118, ways: 27_377, relations: 212))
        }

        @Test("A truncated file gives a clear error, never a crash")
        func truncated() throws {
            let bytes = try PBFReader(path: MonacoFixture.pbfPath).bytes
            for length in [3, 10, 200, bytes.count / 2, bytes.count - 1] {
                var counts = OSMElementCounts()
                #expect(throws: MapImportError.self) {
                    try PBFReader(bytes: Array(bytes.prefix(length))).read(into: &counts)
                }
            }
        }

        @Test("Corrupted bytes give a clear error, never a crash")
        func corrupted() throws {
            let bytes = try PBFReader(path: MonacoFixture.pbfPath).bytes
            var generator = SeededGenerator(state: 7)
            var failures = 0
            for _ in 0..<40 {
                var damaged = bytes
                let offset = Int.random(in: 0..<damaged.count, using: &generator)
                for index in offset..<min(damaged.count, offset + 64) {
                    damaged[index] = UInt8.random(in: 0...255, using: &generator)
                }
                var counts = OSMElementCounts()
                do {
                    try PBFReader(bytes: damaged).read(into: &counts)
                } catch {
                    failures += 1
                    #expect(!error.description.isEmpty)
                }
            }
            // Random damage inside a zlib stream is caught by its checksum; almost every damaged copy must fail.
            #expect(failures >= 35)
            var counts = OSMElementCounts()
            #expect(throws: MapImportError.self) {
                try PBFReader(bytes: Array("not a map at all".utf8)).read(into: &counts)
            }
            #expect(throws: MapImportError.self) { try PBFReader(bytes: []).read(into: &counts) }
        }

        @Test("A missing file is reported by name")
        func missingFile() {
            #expect(throws: MapImportError.unreadable("/nonexistent/x.osm.pbf does not exist or is not readable")) {
                _ = try PBFReader(path: "/nonexistent/x.osm.pbf")
            }
        }
    }
}
