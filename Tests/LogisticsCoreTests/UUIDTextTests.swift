import Foundation
import Testing

@testable import LogisticsCore

@Suite("UUID spelling")
struct UUIDTextTests {
    @Test("the hand-written spelling is Foundation's, lowercased, and reads back to the same id")
    func agreesWithFoundation() {
        let edges = [
            UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
            UUID(
                uuid: (0x09, 0x0a, 0x10, 0x9f, 0xa0, 0xf0, 0x0f, 0x1b, 0xc2, 0xd3, 0xe4, 0x5f, 0x60, 0x71, 0x82, 0x93)
            ),
        ]
        for id in edges + (0..<10_000).map({ _ in UUID() }) {
            #expect(id.lowercased == id.uuidString.lowercased())
            #expect(UUID(uuidString: id.lowercased) == id)
        }
        #expect(edges[2].lowercased == "090a109f-a0f0-0f1b-c2d3-e45f60718293")
    }
}
