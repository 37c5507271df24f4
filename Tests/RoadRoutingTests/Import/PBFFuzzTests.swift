import CompressNIO
import Foundation
import FuzzSupport
import LogisticsCore
import NIOCore
import Testing

@testable import RoadRouting

extension RoadRoutingSuites {
    /// The map importer on damaged files (issue #20, point 16): a synthetic grid stored raw, so damage reaches the
    /// block decoder and the graph builder instead of stopping at a zlib checksum, and the committed Monaco extract
    /// truncated and corrupted. Every case imports or throws a `MapImportError` with a sentence, within a time bound.
    @Suite("Map importer fuzzing: truncated and corrupted PBF files", .timeLimit(.minutes(2)))
    struct PBFFuzzTests {
        static let perCase = Duration.seconds(1)

        /// Imports `bytes` as the server would (graph, then contraction); returns whether it imported.
        @discardableResult
        static func importOutcome(_ bytes: [UInt8], case index: Int, _ what: String) -> Bool {
            var imported = false
            let elapsed = timed {
                do throws(MapImportError) {
                    let (graph, _) = try MapImporter.importGraph(
                        pbf: PBFReader(bytes: bytes), profile: RoutingProfile(.car))
                    _ = RoadMap.prepare(graph: graph)
                    imported = true
                } catch {
                    #expect(!error.description.isEmpty, "\(what) case \(index)")
                }
            }
            #expect(elapsed < perCase, "\(what) case \(index) took \(elapsed)")
            return imported
        }

        @Test("the synthetic grid imports, with its oneways and its restriction")
        func gridImports() throws {
            let (graph, report) = try MapImporter.importGraph(
                pbf: PBFReader(bytes: PBFWriter.file(dataBlocks: [PBFWriter.grid])), profile: RoutingProfile(.car))
            #expect(report.ways == 8 && report.restrictionsApplied == 1)
            // 16 crossings and the restricted copy of the via node, which keeps its two arcs along the row.
            #expect(graph.nodeCount == 17 && graph.arcCount == 4 * 3 * 2 + 4 * 3 + 2)
        }

        @Test("mutated files and blocks import or give a MapImportError")
        func mutatedGrid() async {
            var turns = CooperativeTurns()
            var mutator = ByteMutator(SeededGenerator(state: 20))
            let file = PBFWriter.file(dataBlocks: [PBFWriter.grid])
            var imported = 0
            for index in 0..<3_000 {
                await turns.pass()
                if Self.importOutcome(mutator.mutate(file), case: index, "file") { imported += 1 }
            }
            for index in 0..<3_000 {
                await turns.pass()
                let block = mutator.mutate(PBFWriter.grid)
                if Self.importOutcome(PBFWriter.file(dataBlocks: [block]), case: index, "block") { imported += 1 }
            }
            for length in 0..<file.count {
                await turns.pass()
                Self.importOutcome(Array(file.prefix(length)), case: length, "truncated")
            }
            // Damage that leaves the framing whole must reach the graph builder, not only the framing checks.
            #expect(imported > 200, "only \(imported) of 6,000 mutated copies imported")
        }

        @Test("the Monaco extract truncated and corrupted gives a MapImportError")
        func monaco() async throws {
            var turns = CooperativeTurns()
            let bytes = try PBFReader(path: MonacoFixture.pbfPath).bytes
            var mutator = ByteMutator(SeededGenerator(state: 21))
            // Cut points spread over the file, and the first blocks in detail (headers, lengths, zlib streams).
            let cuts = (0..<24).map { _ in mutator.int(0...bytes.count - 1) } + Array(0..<300)
            // Cut between two blobs, the file is a valid shorter extract; anywhere else it must be refused.
            var boundaries: Set<Int> = []
            var position = 0
            while position < bytes.count {
                position = Self.blobEnd(bytes, from: position)
                boundaries.insert(position)
            }
            for (index, length) in cuts.enumerated() {
                await turns.pass()
                var counts = OSMElementCounts()
                let elapsed = timed {
                    do {
                        try PBFReader(bytes: Array(bytes.prefix(length))).read(into: &counts)
                        #expect(boundaries.contains(length), "a cut at \(length) was read as a whole file")
                    } catch let error as MapImportError {
                        #expect(!error.description.isEmpty)
                    } catch {
                        Issue.record("cut at \(length): \(error)")
                    }
                }
                #expect(elapsed < .seconds(5), "cut \(index) took \(elapsed)")
            }
            // The first blocks mutated: framing, blob headers and zlib streams (which their checksums catch).
            let head = Array(bytes.prefix(Self.firstDataBlockEnd(bytes)))
            for index in 0..<600 {
                await turns.pass()
                var counts = OSMElementCounts()
                let elapsed = timed {
                    do {
                        try PBFReader(bytes: mutator.mutate(head)).read(into: &counts)
                    } catch let error as MapImportError {
                        #expect(!error.description.isEmpty)
                    } catch {
                        Issue.record("case \(index): \(error)")
                    }
                }
                #expect(elapsed < Self.perCase, "case \(index) took \(elapsed)")
            }
        }

        @Test("a real Monaco block, inflated and damaged, decodes or gives a MapImportError")
        func monacoBlock() async throws {
            var turns = CooperativeTurns()
            let bytes = try PBFReader(path: MonacoFixture.pbfPath).bytes
            let block = try Self.smallestDataBlock(bytes)
            var mutator = ByteMutator(SeededGenerator(state: 22))
            for index in 0..<400 {
                await turns.pass()
                var counts = OSMElementCounts()
                let file = PBFWriter.file(dataBlocks: [mutator.mutate(block)])
                let elapsed = timed {
                    do {
                        try PBFReader(bytes: file).read(into: &counts)
                    } catch let error as MapImportError {
                        #expect(!error.description.isEmpty)
                    } catch {
                        Issue.record("case \(index): \(error)")
                    }
                }
                #expect(elapsed < Self.perCase, "case \(index) took \(elapsed)")
            }
        }

        @Test("a zlib block that inflates past its declared size is refused, not inflated")
        func inflationBomb() throws {
            var zeros = ByteBuffer(repeating: 0, count: 8 << 20)
            let compressed = try zeros.compress(with: .zlib())
            let blob = ProtobufWriter.build {
                $0.integer(2, 1_000)
                $0.message(3, Array(buffer: compressed))
            }
            let header = ProtobufWriter.build {
                $0.string(1, "OSMData")
                $0.integer(3, UInt64(blob.count))
            }
            let file =
                PBFWriter.file(dataBlocks: []) + [0, 0, 0, UInt8(header.count)] + header + blob
            var counts = OSMElementCounts()
            #expect(throws: MapImportError.self) { try PBFReader(bytes: file).read(into: &counts) }
        }

        /// Where the file's first OSMData blob ends (header block, then the first data block).
        static func firstDataBlockEnd(_ bytes: [UInt8]) -> Int {
            var position = 0
            for _ in 0..<2 { position = blobEnd(bytes, from: position) }
            return position
        }

        static func blobEnd(_ bytes: [UInt8], from start: Int) -> Int {
            let headerLength = bytes[start..<(start + 4)].reduce(0) { $0 << 8 | Int($1) }
            var header = ProtobufReader(bytes: bytes, range: (start + 4)..<(start + 4 + headerLength))
            var size = 0
            while let field = try? header.nextField() {
                if field.number == 3 {
                    size = Int((try? header.readVarint()) ?? 0)
                } else {
                    try? header.skip(field.type)
                }
            }
            return start + 4 + headerLength + size
        }

        /// The smallest OSMData block of the file (Monaco's relations, 55 KB; the nodes and ways come in blocks of 2.4 and
        /// 1.7 MB, too slow to decode thousands of times in a debug build), inflated, to damage past the zlib checksum.
        static func smallestDataBlock(_ bytes: [UInt8]) throws -> [UInt8] {
            var position = blobEnd(bytes, from: 0)
            var smallest: [UInt8]?
            while position < bytes.count {
                let end = blobEnd(bytes, from: position)
                let headerLength = bytes[position..<(position + 4)].reduce(0) { $0 << 8 | Int($1) }
                var blob = ProtobufReader(bytes: bytes, range: (position + 4 + headerLength)..<end)
                while let field = try blob.nextField() {
                    guard field.number == 3 else {
                        try blob.skip(field.type)
                        continue
                    }
                    var compressed = ByteBuffer(bytes: bytes[try blob.readLengthDelimited()])
                    let inflated = try compressed.decompress(with: .zlib())
                    if inflated.readableBytes < smallest?.count ?? .max { smallest = Array(buffer: inflated) }
                }
                position = end
            }
            return try #require(smallest)
        }
    }
}
