import Testing

@testable import RoadRouting

extension RoadRoutingSuites {
    @Suite("Search labels by node")
    struct NodeTableTests {
        @Test("past many growths, every node keeps its latest value and an unknown node has none")
        func growsAndKeepsValues() {
            var table = NodeTable<UInt64>()
            // Nodes spaced like a grid's rows collide in the low bits; the multiplicative hash must spread them.
            let nodes = (0..<Int32(5_000)).map { $0 * 1_024 }
            for node in nodes { table[node] = UInt64(node) }
            for node in nodes where node % 3 == 0 { table[node] = UInt64(node) + 1 }
            #expect(table.count == nodes.count)
            let wrong = nodes.filter { table[$0] != UInt64($0) + ($0 % 3 == 0 ? 1 : 0) }
            #expect(wrong.isEmpty, "\(wrong.prefix(5))")
            #expect(table[1] == nil)
            #expect(table[Int32.max] == nil)
        }
    }
}
