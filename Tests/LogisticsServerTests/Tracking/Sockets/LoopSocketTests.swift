import Foundation
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import LogisticsServer

/// The loop-served WebSocket, frame by frame on an embedded channel with a manual clock: pings, the close
/// handshake, fragments, the flood limit, the backlog of a client that stops reading, and the shutdown close.
/// The tests are synchronous: an embedded channel must stay on the thread that made it.
@Suite("Loop socket")
struct LoopSocketTests {
    /// What the socket's stream saw, and a way for the test to act as the stream.
    final class RecordingStream: LoopSocketStream, @unchecked Sendable {
        // Unchecked: `makeStream` must be `@Sendable`, but the stream only ever lives on the test's thread.
        var socket: LoopSocket?
        var texts: [String] = []
        var hasEnded = false

        func opened(_ socket: LoopSocket) { self.socket = socket }
        func received(text: String) { texts.append(text) }
        func ended() {
            hasEnded = true
            socket = nil
        }
    }

    /// Keeps every write pending, as for a client that has stopped reading.
    final class StalledWrites: ChannelOutboundHandler {
        typealias OutboundIn = Any
        var held: [EventLoopPromise<Void>] = []

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if let promise { held.append(promise) }
        }

        func flush(context: ChannelHandlerContext) {}

        /// NIO traps on promises dropped uncompleted.
        func release() {
            for promise in held { promise.fail(ChannelError.ioOnClosedChannel) }
            held = []
        }
    }

    struct Connection {
        let channel: EmbeddedChannel
        let stream: RecordingStream

        var loop: EmbeddedEventLoop { channel.embeddedEventLoop }
        var socket: LoopSocket { stream.socket! }

        /// A client frame: masked, as every client's must be.
        func receive(_ opcode: WebSocketOpcode, _ payload: ByteBuffer, fin: Bool = true) throws {
            let key = WebSocketMaskingKey([0x1f, 0x2e, 0x3d, 0x4c])!
            var masked = payload
            masked.webSocketMask(key)
            try channel.writeInbound(WebSocketFrame(fin: fin, opcode: opcode, maskKey: key, data: masked))
        }

        func receive(_ opcode: WebSocketOpcode, text: String, fin: Bool = true) throws {
            try receive(opcode, ByteBuffer(string: text), fin: fin)
        }

        func receiveClose(code: UInt16) throws {
            var payload = ByteBuffer()
            payload.writeInteger(code)
            try receive(.connectionClose, payload)
        }

        func sent() throws -> WebSocketFrame? {
            try channel.readOutbound(as: WebSocketFrame.self)
        }

        func sentTexts() throws -> [String] {
            var texts: [String] = []
            while let frame = try sent() {
                #expect(frame.opcode == .text)
                texts.append(String(buffer: frame.data))
            }
            return texts
        }

        func setWritable(_ writable: Bool) {
            channel.isWritable = writable
            channel.pipeline.fireChannelWritabilityChanged()
        }
    }

    static func connect(stalled: StalledWrites? = nil) throws -> Connection {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40_000)).wait()
        if let stalled { try channel.pipeline.syncOperations.addHandler(stalled) }
        let stream = RecordingStream()
        let opening = LoopSocketOpening(
            name: "test", path: "/v1/test/stream", metrics: RequestMetrics(), makeStream: { stream })
        try LoopSocket.install(on: channel, opening, maximumMessage: 64 * 1024)
        #expect(stream.socket != nil)
        return Connection(channel: channel, stream: stream)
    }

    /// A close frame's code and reason.
    static func close(_ frame: WebSocketFrame?) -> (code: UInt16, reason: String)? {
        guard let frame, frame.opcode == .connectionClose else { return nil }
        var data = frame.data
        guard let code = data.readInteger(as: UInt16.self) else { return nil }
        return (code, String(buffer: data))
    }

    static func finish(_ connection: Connection) throws {
        _ = try connection.channel.finish(acceptAlreadyClosed: true)
    }

    @Test("a ping is answered with a pong carrying the same payload")
    func pingIsAnswered() throws {
        let connection = try Self.connect()
        defer { try? Self.finish(connection) }

        try connection.receive(.ping, text: "are you there")

        let pong = try #require(try connection.sent())
        #expect(pong.opcode == .pong)
        #expect(pong.fin)
        #expect(String(buffer: pong.data) == "are you there")
        #expect(pong.maskKey == nil)
    }

    @Test("pings count against the flood limit: more than the burst at once close the socket with 4429")
    func pingFloodIsRateLimited() throws {
        let connection = try Self.connect()
        defer { try? Self.finish(connection) }

        var pongs = 0
        var close: (code: UInt16, reason: String)?
        for index in 0..<(Int(SocketPolicy.incomingBurst) * 3) {
            try connection.receive(.ping, text: "\(index)")
            while let frame = try connection.sent() {
                if frame.opcode == .pong { pongs += 1 } else { close = Self.close(frame) }
            }
        }
        #expect(pongs < Int(SocketPolicy.incomingBurst) * 2)
        #expect(close?.code == 4429)
        #expect(connection.stream.socket?.isOpen != true)
    }

    @Test("a ping that arrives while the client is not taking writes gets no pong; once it reads again, pongs resume")
    func noPongWhileUnwritable() throws {
        let connection = try Self.connect()
        defer { try? Self.finish(connection) }

        connection.setWritable(false)
        for index in 0..<50 { try connection.receive(.ping, text: "\(index)") }
        #expect(try connection.sent() == nil)
        connection.setWritable(true)
        try connection.receive(.ping, text: "again")
        let pong = try #require(try connection.sent())
        #expect(pong.opcode == .pong)
        #expect(String(buffer: pong.data) == "again")
        #expect(try connection.sent() == nil)
    }

    @Test("a client that answers each ping keeps its socket through the next interval")
    func answeredPingsKeepTheSocket() throws {
        let connection = try Self.connect()
        defer { try? Self.finish(connection) }

        for _ in 0..<3 {
            connection.loop.advanceTime(by: LoopSocket.pingInterval)
            let ping = try #require(try connection.sent())
            #expect(ping.opcode == .ping)
            try connection.receive(.pong, ping.data)
        }
        #expect(connection.channel.isActive)
        #expect(connection.socket.isOpen)
    }

    @Test("a client that never answers a ping gets a close frame and is cut one interval after the ping")
    func unansweredPingDropsTheClient() throws {
        let connection = try Self.connect()
        defer { try? Self.finish(connection) }

        connection.loop.advanceTime(by: LoopSocket.pingInterval)
        #expect(try connection.sent()?.opcode == .ping)
        connection.loop.advanceTime(by: LoopSocket.pingInterval - .milliseconds(1))
        #expect(try connection.sent() == nil)
        #expect(connection.channel.isActive)

        connection.loop.advanceTime(by: .milliseconds(1))
        let close = try #require(Self.close(try connection.sent()))
        #expect(close.code == 1001)
        #expect(close.reason == "Ping timeout")
        #expect(!connection.channel.isActive)
        #expect(connection.stream.hasEnded)
    }

    @Test("a client's close frame is answered with its own code, then the connection ends", arguments: [1000, 4000])
    func clientCloseIsEchoed(code: UInt16) throws {
        let connection = try Self.connect()
        defer { try? Self.finish(connection) }

        try connection.receiveClose(code: code)

        let close = try #require(Self.close(try connection.sent()))
        #expect(close.code == code)
        #expect(!connection.channel.isActive)
        #expect(connection.stream.hasEnded)
    }

    @Test("a text message split into a first frame and a continuation reaches the stream as one text")
    func fragmentsAreJoined() throws {
        let connection = try Self.connect()
        defer { try? Self.finish(connection) }

        try connection.receive(.text, text: "{\"type\":\"sub", fin: false)
        #expect(connection.stream.texts.isEmpty)
        try connection.receive(.continuation, text: "scribe\"}")

        #expect(connection.stream.texts == ["{\"type\":\"subscribe\"}"])
    }

    @Test("more messages at once than the burst close the socket with 4429 RATE_LIMITED")
    func floodIsRateLimited() throws {
        let burst = Int(SocketPolicy.incomingBurst)
        let started = Date()
        let connection = try Self.connect()
        defer { try? Self.finish(connection) }

        for index in 0..<(burst + 50) {
            try connection.receive(.text, text: "message \(index)")
        }

        // The bucket refills in real time while the messages are written; whatever it gained may get through.
        let refilled = Int(Date().timeIntervalSince(started) * SocketPolicy.incomingPerSecond)
        #expect(connection.stream.texts.count >= burst)
        #expect(connection.stream.texts.count <= burst + refilled)
        let close = try #require(Self.close(try connection.sent()))
        #expect(close.code == 4429)
        #expect(close.reason.hasPrefix("RATE_LIMITED"))
        #expect(try connection.sent() == nil)
    }

    @Test("frames wait while unwritable and go out in order; a backlog past 1,000 messages closes with 4429")
    func slowClientBacklog() throws {
        let connection = try Self.connect()
        defer { try? Self.finish(connection) }

        connection.setWritable(false)
        for text in ["one", "two", "three"] { connection.socket.send(text: text) }
        #expect(try connection.sent() == nil)
        connection.setWritable(true)
        #expect(try connection.sentTexts() == ["one", "two", "three"])

        connection.setWritable(false)
        let limit = SocketPolicy.backlogMessages
        for index in 0..<limit { connection.socket.send(text: "\(index)") }
        #expect(connection.socket.isOpen)
        connection.socket.send(text: "\(limit)")
        #expect(connection.stream.socket?.isOpen == false)

        // The backlog is dropped: a client this far behind gets the close frame first, not 1,000 stale messages.
        connection.setWritable(true)
        let close = try #require(Self.close(try connection.sent()))
        #expect(close.code == 4429)
        #expect(close.reason.hasPrefix("RATE_LIMITED"))
        #expect(try connection.sent() == nil)
    }

    @Test("a server shutting down sends close 1001 and cuts a client that does not answer 2 s later")
    func quiesceClosesWithGoingAway() throws {
        let connection = try Self.connect()
        defer { try? Self.finish(connection) }

        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())

        let close = try #require(Self.close(try connection.sent()))
        #expect(close.code == 1001)
        #expect(close.reason == "server restarting; reconnect")
        connection.loop.advanceTime(by: .milliseconds(1_999))
        #expect(connection.channel.isActive)
        connection.loop.advanceTime(by: .milliseconds(1))
        #expect(!connection.channel.isActive)
        #expect(connection.stream.hasEnded)
    }

    @Test("a client that sends its close and then stops reading is cut once the close timeout has passed")
    func closingClientThatStopsReadingIsCut() throws {
        let stalled = StalledWrites()
        let connection = try Self.connect(stalled: stalled)
        defer {
            stalled.release()
            try? Self.finish(connection)
        }

        try connection.receiveClose(code: 1000)
        connection.loop.advanceTime(by: LoopSocket.closeTimeout - .milliseconds(1))
        #expect(connection.channel.isActive)
        connection.loop.advanceTime(by: .milliseconds(1))
        #expect(!connection.channel.isActive)
        #expect(connection.stream.hasEnded)
    }

    @Test("a message larger than the limit, sent in fragments, is refused with close 1009")
    func oversizedMessageIsRefused() throws {
        let connection = try Self.connect()
        defer { try? Self.finish(connection) }

        let half = String(repeating: "x", count: 40 * 1024)
        try connection.receive(.text, text: half, fin: false)
        try connection.receive(.continuation, text: half)

        let close = try #require(Self.close(try connection.sent()))
        #expect(close.code == 1009)
        #expect(connection.stream.texts.isEmpty)
        connection.loop.advanceTime(by: LoopSocket.closeTimeout)
        #expect(!connection.channel.isActive)
    }
}
