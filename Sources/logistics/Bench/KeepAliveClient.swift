import NIOCore
import NIOPosix
import Synchronization

/// Requests over plain keep-alive HTTP/1.1 connections, one in flight on each, like a phone: riders' fixes in the
/// tracking bench, routes in the routing bench. The load generator shares this machine's two cores with the server,
/// and AsyncHTTPClient's per-request machinery (and parsing every answer) made it spend most of a core on 2,000
/// requests a second; this writes the request bytes and reads back the status line and Content-Length, nothing more.
final class KeepAliveClient: Sendable {
    private let connections: [any Channel]
    private let pool: Mutex<Pool>

    private struct Pool {
        var free: [Int]
        var waiting: [CheckedContinuation<Int, Never>] = []
    }

    private init(connections: [any Channel]) {
        self.connections = connections
        pool = Mutex(Pool(free: Array(connections.indices)))
    }

    static func connect(host: String, port: Int, count: Int) async throws -> KeepAliveClient {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ResponseReader())
                }
            }
        var connections: [any Channel] = []
        for _ in 0..<count {
            connections.append(try await bootstrap.connect(host: host, port: port).get())
        }
        return KeepAliveClient(connections: connections)
    }

    /// The request's HTTP status, or nil when its connection failed.
    func send(_ request: ByteBuffer) async -> Int? {
        let index = await takeConnection()
        defer { giveBack(index) }
        let channel = connections[index]
        let answered = channel.eventLoop.makePromise(of: Int.self)
        channel.writeAndFlush(ResponseReader.Outbound(bytes: request, answered: answered), promise: nil)
        return try? await answered.futureResult.get()
    }

    func close() async {
        for channel in connections { try? await channel.close() }
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
        while let status = nextResponse() {
            guard !pending.isEmpty else { break }
            pending.removeFirst().succeed(status)
        }
    }

    /// Takes one whole response off the front of what was received, if there is one.
    private func nextResponse() -> Int? {
        guard var buffer = received, let view = buffer.readableBytesView.firstRange(of: Self.headerEnd) else {
            return nil
        }
        let headerLength = view.upperBound - buffer.readerIndex
        guard let head = buffer.getString(at: buffer.readerIndex, length: headerLength),
            let status = Int(head.dropFirst(9).prefix(3))
        else { return nil }
        var bodyLength = 0
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            bodyLength = Int(line.dropFirst("content-length:".count).filter { $0 != " " }) ?? 0
        }
        guard buffer.readableBytes >= headerLength + bodyLength else { return nil }
        buffer.moveReaderIndex(forwardBy: headerLength + bodyLength)
        received = buffer.readableBytes == 0 ? nil : buffer
        return status
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
