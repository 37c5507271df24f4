import NIOCore
import NIOPosix
import Synchronization

/// Requests over plain keep-alive HTTP/1.1 connections, one in flight on each, like a phone: riders' fixes in the
/// tracking bench, routes in the routing bench. The load generator shares this machine's two cores with the server,
/// and AsyncHTTPClient's per-request machinery (and parsing every answer) made it compete with the server for CPU;
/// this writes the request bytes and reads back the status line and Content-Length, nothing more.
final class KeepAliveClient: Sendable {
    private let host: String
    private let port: Int
    private let pool: Mutex<Pool>

    private struct Pool {
        var connections: [any Channel]
        var free: [Int]
        var waiting: [CheckedContinuation<Int, Never>] = []
    }

    private init(host: String, port: Int, connections: [any Channel]) {
        self.host = host
        self.port = port
        pool = Mutex(Pool(connections: connections, free: Array(connections.indices)))
    }

    static func connect(host: String, port: Int, count: Int) async throws -> KeepAliveClient {
        var connections: [any Channel] = []
        for _ in 0..<count {
            connections.append(try await open(host: host, port: port))
        }
        return KeepAliveClient(host: host, port: port, connections: connections)
    }

    private static func open(host: String, port: Int) async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ResponseReader())
                }
            }
            .connect(host: host, port: port).get()
    }

    /// The request's HTTP status, or nil when its connection failed.
    func send(_ request: ByteBuffer) async -> Int? {
        let index = await takeConnection()
        defer { giveBack(index) }
        var channel = pool.withLock { $0.connections[index] }
        // Servers end keep-alive connections on their own terms (osrm-routed after 512 requests); a phone would
        // open a new one, and so does this, inside the request's time.
        if !channel.isActive {
            guard let fresh = try? await Self.open(host: host, port: port) else { return nil }
            pool.withLock { $0.connections[index] = fresh }
            channel = fresh
        }
        let answered = channel.eventLoop.makePromise(of: Int.self)
        let written = channel.eventLoop.makePromise(of: Void.self)
        // A write into a connection that closed under it never reaches the reader, so its answer would never come.
        written.futureResult.whenFailure { answered.fail($0) }
        channel.writeAndFlush(ResponseReader.Outbound(bytes: request, answered: answered), promise: written)
        return try? await answered.futureResult.get()
    }

    func close() async {
        for channel in pool.withLock({ $0.connections }) { try? await channel.close() }
    }

    private func takeConnection() async -> Int {
        await withCheckedContinuation { continuation in
            let index = pool.withLock { pool -> Int? in
                if let index = pool.free.popLast() { return index }
                pool.waiting.append(continuation)
                return nil
            }
            if let index { continuation.resume(returning: index) }
        }
    }

    private func giveBack(_ index: Int) {
        let waiter = pool.withLock { pool -> CheckedContinuation<Int, Never>? in
            if pool.waiting.isEmpty {
                pool.free.append(index)
                return nil
            }
            return pool.waiting.removeFirst()
        }
        waiter?.resume(returning: index)
    }
}

/// Writes one request and completes its promise with the status of the response once all its body has arrived.
private final class ResponseReader: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = Outbound
    typealias OutboundOut = ByteBuffer

    struct Outbound: Sendable {
        var bytes: ByteBuffer
        var answered: EventLoopPromise<Int>
    }

    private var pending = CircularBuffer<EventLoopPromise<Int>>()
    private var received: ByteBuffer?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let outbound = unwrapOutboundIn(data)
        pending.append(outbound.answered)
        context.write(wrapOutboundOut(outbound.bytes), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        if received == nil {
            received = chunk
        } else {
            received!.writeBuffer(&chunk)
        }
        while let (status, closing) = nextResponse() {
            guard let answered = pending.popFirst() else { break }
            // Closed before the answer is handed over, so the next request sees it closed and opens another. Taken
            // off the queue first: closing fails whatever is still pending, synchronously.
            if closing { context.close(promise: nil) }
            answered.succeed(status)
        }
    }

    /// Takes one whole response off the front of what was received, if there is one, with whether the server
    /// will close the connection after it.
    private func nextResponse() -> (status: Int, closing: Bool)? {
        guard var buffer = received, let view = buffer.readableBytesView.firstRange(of: Self.headerEnd) else {
            return nil
        }
        let headerLength = view.upperBound - buffer.readerIndex
        guard let head = buffer.getString(at: buffer.readerIndex, length: headerLength),
            let status = Int(head.dropFirst(9).prefix(3))
        else { return nil }
        var bodyLength = 0
        var closing = false
        for line in head.split(separator: "\r\n") {
            let lowered = line.lowercased()
            if lowered.hasPrefix("content-length:") {
                bodyLength = Int(lowered.dropFirst("content-length:".count).filter { $0 != " " }) ?? 0
            } else if lowered.hasPrefix("connection:") {
                closing = closing || lowered.contains("close")
            } else if lowered.hasPrefix("keep-alive:") {
                // osrm-routed counts its allowance down in `max=` and closes after the last, without saying close.
                closing = closing || lowered.hasSuffix("max=1") || lowered.contains("max=1,")
            }
        }
        guard buffer.readableBytes >= headerLength + bodyLength else { return nil }
        buffer.moveReaderIndex(forwardBy: headerLength + bodyLength)
        received = buffer.readableBytes == 0 ? nil : buffer
        return (status, closing)
    }

    private static let headerEnd: [UInt8] = Array("\r\n\r\n".utf8)

    func channelInactive(context: ChannelHandlerContext) {
        failPending(context: context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failPending(context: context)
        context.close(promise: nil)
    }

    private func failPending(context: ChannelHandlerContext) {
        while let promise = pending.popFirst() { promise.fail(ChannelError.ioOnClosedChannel) }
    }
}
