import Foundation
import Testing

@testable import TestSupport

/// The sockets beside the route matrix: B's order's tracking stream, the rider stream and the dispatch stream,
/// opened with A's principals.
@Suite("Who sees what on the sockets", .timeLimit(.minutes(5)))
struct AccessSocketTests {
    @Test("B's tracking stream refuses A's customer and link (4404) and every other role (4403), saying nothing of B")
    func trackingStream() async throws {
        try await TestServer.run(.sqlite, mode: .live, configure: AccessMatrixTests.unlimited) { server in
            let world = try await AccessWorld.build(server)
            let tracking = "/api/v1/customer/orders/\(world.b.orderId)/tracking"
            let cases: [(String, String, String, UInt16)] = [
                ("A's customer", tracking, world.a.customer, 4404),
                ("A's tracking link", tracking, world.a.trackingLink, 4404),
                ("A's rider", tracking, world.a.rider, 4403),
                ("A's vendor", tracking, world.a.vendor, 4403),
                ("a dispatcher", tracking, world.dispatcher, 4403),
                ("an admin", tracking, world.admin, 4403),
                ("no valid token", tracking, "not-a-token", 4401),
                ("A's customer on the rider stream", "/api/v1/rider/stream", world.a.customer, 4403),
                ("A's vendor on the rider stream", "/api/v1/rider/stream", world.a.vendor, 4403),
                ("a dispatcher on the rider stream", "/api/v1/rider/stream", world.dispatcher, 4403),
                ("A's tracking link on the rider stream", "/api/v1/rider/stream", world.a.trackingLink, 4401),
                ("A's rider on the dispatch stream", "/api/v1/dispatch/stream", world.a.rider, 4403),
                ("A's customer on the dispatch stream", "/api/v1/dispatch/stream", world.a.customer, 4403),
                ("A's vendor on the dispatch stream", "/api/v1/dispatch/stream", world.a.vendor, 4403),
            ]
            for (who, path, token, code) in cases {
                // The token as the first message: a refusal sent together with the 101 response is what the test
                // client now and then never delivers, and fourteen refusals in a row on a busy machine met it.
                let socket = TrackingFollower(port: server.port, path: path, token: token, tokenInFirstMessage: true)
                try await socket.finished()
                #expect(socket.storage.applicationCloseCode.withLock { $0 } == code, "\(who) on \(path)")
                #expect(socket.messages.first?["type"] as? String == "error", "\(who): \(socket.messages)")
                let said = socket.storage.texts.withLock { $0.joined() }
                let leaks = world.leaks(in: said, sent: path)
                #expect(leaks.isEmpty, "\(who) was told B's \(leaks)")
            }
            // B's own customer still follows B's order: the refusals above are about who asks, not a broken stream.
            let owner = TrackingFollower(port: server.port, orderId: world.b.orderId, token: world.b.customer)
            try await owner.wait { $0.first?["type"] as? String == "snapshot" }
        }
    }

    @Test("A's rider stream carries A's offers and none of B's")
    func riderStream() async throws {
        try await TestServer.run(.sqlite, mode: .live, configure: AccessMatrixTests.unlimited) { server in
            let world = try await AccessWorld.build(server)
            let streamA = TrackingFollower(port: server.port, path: "/api/v1/rider/stream", token: world.a.rider)
            let streamB = TrackingFollower(port: server.port, path: "/api/v1/rider/stream", token: world.b.rider)
            for stream in [streamA, streamB] { try await stream.wait { $0.first?["type"] as? String == "ready" } }
            for party in [world.b, world.a] {
                let offered = try await server.send(
                    .post, "/api/v1/orders/\(party.openOrderId)/offers", token: party.vendor,
                    json: ["riderIds": [party.riderId.lowercased]])
                #expect(offered.status == 201)
            }
            for (stream, party) in [(streamA, world.a), (streamB, world.b)] {
                try await stream.wait { messages in messages.contains { $0["orderId"] as? String == party.openOrderId }
                }
            }
            let heard = streamA.storage.texts.withLock { $0.joined() }
            #expect(world.leaks(in: heard, sent: "").isEmpty, "A's rider heard B's \(world.leaks(in: heard, sent: ""))")
        }
    }
}
