import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// Clients that hold connections without finishing anything: a head dribbled a byte at a time (slowloris), a body
/// that stops, a connection that says nothing, too many connections from one address.
@Suite("Slow clients", .timeLimit(.minutes(3)))
struct SlowClientTests {
    static func short(_ configuration: inout ServerConfiguration) {
        configuration.connectionLimits.headerSeconds = 2
        configuration.connectionLimits.bodyGapSeconds = 2
        configuration.connectionLimits.idleSeconds = 3
        configuration.connectionLimits.processingSeconds = 2
    }

    @Test("a head sent a byte a second is cut at the header deadline while others are answered")
    func slowloris() async throws {
        try await TestServer.run(.sqlite, mode: .live, configure: Self.short) { server in
            let slow = try RawSocket(port: server.port)
            try slow.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            let started = ContinuousClock.now
            var cut = false
            for index in 0..<8 where !cut {
                do { try slow.write("X-Slow-\(index): a\r\n") } catch { cut = true }
                #expect(try await server.send(.get, "/health/live").status == 200, "others are answered")
                if !cut { cut = await slow.read(within: .seconds(1)).closed }
            }
            #expect(cut, "the dribbling client was never cut off")
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test("a head the server cannot parse gets no answer, and its connection is cut instead of held for ever")
    func notHTTP() async throws {
        try await TestServer.run(.sqlite, mode: .live, configure: Self.short) { server in
            for garbage in ["garbage\r\n\r\n", "GET /health/live\r\n\r\n"] {
                let socket = try RawSocket(port: server.port)
                try socket.write(garbage)
                let started = ContinuousClock.now
                let (_, closed) = await socket.read(within: .seconds(6))
                #expect(closed, "\(garbage.debugDescription): the connection stays open")
                #expect(ContinuousClock.now - started < .seconds(5))
            }
            // A fresh connection: the harness's own sat idle past the shortened idle time meanwhile.
            #expect(try await ConcurrentClient.send(port: server.port, .get, "/health/live").status == 200)
        }
    }

    @Test("a body that stops arriving is cut after the gap; a connection that says nothing after the idle time")
    func silentBodyAndIdle() async throws {
        try await TestServer.run(.sqlite, mode: .live, configure: Self.short) { server in
            let token = try await server.token(.dispatcher)
            let stalled = try RawSocket(port: server.port)
            try stalled.write(
                "POST /api/v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 400\r\n\r\n{\"externalRef\":")
            let silent = try RawSocket(port: server.port)
            let stalledEnd = await stalled.read(within: .seconds(6))
            #expect(stalledEnd.closed, "a stalled body keeps its connection")
            #expect(String(decoding: stalledEnd.bytes, as: UTF8.self).isEmpty, "and nothing was answered for it")
            #expect(try await server.count("orders") == 0)
            let silentEnd = await silent.read(within: .seconds(6))
            #expect(silentEnd.closed, "a silent connection is kept open")

            // A client that finishes in time is served over a connection that stays open between requests.
            let keepAlive = try RawSocket(port: server.port)
            for _ in 0..<2 {
                try keepAlive.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                let answer = await keepAlive.read(within: .seconds(5)) {
                    String(decoding: $0, as: UTF8.self).contains("\"ok\"")
                }
                #expect(String(decoding: answer.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    @Test("a WebSocket outlives the HTTP idle time: the guard steps aside after the upgrade")
    func socketsAreNotIdleConnections() async throws {
        // Only the idle time is short: on a loaded CI machine the fix's POST below can take longer than the other
        // shortened limits, and a cut there would say nothing about sockets.
        try await TestServer.run(.sqlite, mode: .live, configure: { $0.connectionLimits.idleSeconds = 3 }) { server in
            let dispatcher = try await server.token(.dispatcher)
            let socket = TrackingFollower(port: server.port, path: DispatchStreamSocket.path, token: dispatcher)
            try await socket.wait { $0.contains { $0["type"] as? String == "ready" } }
            try await Task.sleep(for: .seconds(5))
            let rider = try await server.token(.rider)
            let fix: [String: Any] = [
                "lat": 43.738, "lon": 7.4262, "accuracyM": 5, "recordedAt": RFC3339.string(from: server.clock.now()),
            ]
            // A new connection: the test's own client kept one that sat idle past the limit and was closed.
            let posted = try await ConcurrentClient.send(
                port: server.port, .post, "/api/v1/rider/locations", token: rider,
                jsonBody: try JSONSerialization.data(withJSONObject: ["fixes": [fix]]))
            #expect(posted.status == 202)
            try await socket.wait { $0.contains { $0["type"] as? String == "riderLocation" } }
        }
    }

    /// Whether a health check over this connection is answered.
    static func answered(_ socket: RawSocket) async -> Bool {
        guard (try? socket.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")) != nil else { return false }
        let answer = await socket.read(within: .seconds(5)) { String(decoding: $0, as: UTF8.self).contains("\"ok\"") }
        return String(decoding: answer.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200")
    }

    @Test("past its cap an address's new connections are closed at once; closing one makes room")
    func connectionsPerAddress() async throws {
        try await TestServer.run(.sqlite, mode: .live, configure: { $0.connectionLimits.perAddress = 3 }) { server in
            var held: [RawSocket] = []
            while held.count < 4 {
                let socket = try RawSocket(port: server.port)
                guard await Self.answered(socket) else { break }
                held.append(socket)
            }
            #expect((1...3).contains(held.count), "\(held.count) connections were served")
            let refused = try RawSocket(port: server.port)
            #expect(await refused.read(within: .seconds(2)).closed, "a connection past the cap was accepted")
            held.removeLast()
            try await Task.sleep(for: .milliseconds(300))
            #expect(await Self.answered(try RawSocket(port: server.port)), "a closed connection made no room")
        }
    }
}

extension SlowClientTests {
    @Test("a WebSocket gives its place back when it closes: ten opened and closed in turn leave room under a cap of 3")
    func socketsGiveTheirPlaceBack() async throws {
        try await TestServer.run(.sqlite, mode: .live, configure: { $0.connectionLimits.perAddress = 3 }) { server in
            let dispatcher = try await server.token(.dispatcher)
            for round in 0..<10 {
                let socket = try RawSocket(port: server.port)
                #expect(try await socket.upgrade(path: "/api/v1/dispatch/stream", token: dispatcher), "round \(round)")
                socket.shutdown()
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(await Self.answered(try RawSocket(port: server.port)), "closed sockets kept their places")
        }
    }

    @Test("pipelined requests split anywhere are told apart: all answered, and the connection then has its idle time")
    func pipelined() async throws {
        try await TestServer.run(
            .sqlite,
            mode: .live,
            configure: {
                $0.connectionLimits.headerSeconds = 2
                $0.connectionLimits.bodyGapSeconds = 2
                $0.connectionLimits.idleSeconds = 8
            }
        ) { server in
            let token = try await server.token(.dispatcher)
            var order = Fixtures.order()
            order["vendor"] = [
                "name": "Cafe", "address": "Place du Casino", "location": ["lat": 43.7396, "lon": 7.4276],
            ]
            let body = Array(try JSONSerialization.data(withJSONObject: order))
            let head = Array(
                ("POST /api/v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n").utf8)
            let request = head + body
            let stream = request + request
            // One piece holds the end of the first body, the whole second head and the start of its body: read as
            // one, it once made the guard take the next body for a head and cut the connection at the header time.
            let cuts = [request.count - 10, request.count + head.count + 20, stream.count]
            let socket = try RawSocket(port: server.port)
            var from = 0
            for cut in cuts {
                try socket.write(bytes: Array(stream[from..<cut]))
                from = cut
                try await Task.sleep(for: .milliseconds(300))
            }
            let answers = await socket.read(within: .seconds(8)) {
                String(decoding: $0, as: UTF8.self).components(separatedBy: "HTTP/1.1 201").count == 3
            }
            #expect(String(decoding: answers.bytes, as: UTF8.self).components(separatedBy: "HTTP/1.1 201").count == 3)
            #expect(!answers.closed)
            #expect(try await server.count("orders") == 2)
            // Past the header and body limits, within the idle time: the connection still serves.
            try await Task.sleep(for: .seconds(4))
            #expect(await Self.answered(socket), "the connection was cut before its idle time")
        }
    }
}

@Suite("The slow-client guard's reading of a head")
struct RequestHeadLengthTests {
    static func length(_ head: String) -> Int {
        SlowClientGuard.bodyLength(Array(head.utf8)[...])
    }

    @Test("Content-Length in any case and spacing; chunked; neither; a value that is not a length")
    func bodyLength() {
        #expect(Self.length("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 42\r\n") == 42)
        #expect(Self.length("POST /x HTTP/1.1\r\ncontent-LENGTH:7\r\n") == 7)
        #expect(Self.length("POST /x HTTP/1.1\r\nContent-Length: \t 12 \t\r\nHost: a") == 12)
        #expect(Self.length("POST /x HTTP/1.1\r\nTransfer-Encoding: gzip, Chunked\r\n") == Int.max)
        #expect(Self.length("GET /x HTTP/1.1\r\nHost: a\r\n") == 0)
        #expect(Self.length("GET /x HTTP/1.1") == 0)
        #expect(Self.length("POST /x HTTP/1.1\r\nContent-Length: -5\r\n") == 0)
        #expect(Self.length("POST /x HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n") == 0)
        // The request line is not a header, whatever it holds.
        #expect(Self.length("Content-Length: 5\r\nHost: a\r\n") == 0)
        #expect(Self.length("POST /x HTTP/1.1\r\nX-Content-Length: 5\r\nContent-Length: 3\r\n") == 3)
    }
}
