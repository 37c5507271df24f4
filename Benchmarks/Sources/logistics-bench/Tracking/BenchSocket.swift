import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// What a `BenchSocket` hears. Every call comes on the socket's event loop.
protocol BenchSocketListener: AnyObject {
    /// The upgrade is done; `socket` takes messages from now on.
    func opened(_ socket: BenchSocket)
    /// One whole text message.
    func received(_ message: ByteBuffer)
    /// The connection is gone, or never got as far as the upgrade. Called once.
    func closed()
}

/// The load generator's client WebSocket to a local server, served by callbacks on its event loop. The generator
/// shares the machine's two cores with the servers it measures; a Swift task per socket and per message (as
/// HummingbirdWSClient's async sequences have) took a large share of that machine at ten thousand sockets.
final class BenchSocket: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// How long the server has to answer our close frame before the connection is cut.
    private static let closeTimeout: TimeAmount = .seconds(5)

    private let listener: any BenchSocketListener
    private var context: ChannelHandlerContext?
    private var isClosing = false

    private init(listener: any BenchSocketListener) { self.listener = listener }

    /// Opens `ws://127.0.0.1:port/path` with the token as the `bearer` subprotocol, on `eventLoop`. The listener is
    /// made there, before the connection, so it hears `closed()` for a socket refused at any stage.
    @discardableResult
    static func connect(
        on eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next(), port: Int, path: String,
        token: String, listener makeListener: @escaping @Sendable () -> any BenchSocketListener
    ) -> EventLoopFuture<any Channel> {
        ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let socket = NIOLoopBound(BenchSocket(listener: makeListener()), eventLoop: channel.eventLoop)
                    channel.closeFuture.whenComplete { _ in socket.value.listener.closed() }
                    let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: 1 << 16) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            let pipeline = channel.pipeline.syncOperations
                            try pipeline.addHandler(
                                NIOWebSocketFrameAggregator(
                                    minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 64,
                                    maxAccumulatedFrameSize: 1 << 16))
                            try pipeline.addHandler(socket.value)
                        }
                    }
                    let pipeline = channel.pipeline.syncOperations
                    // Forwarding the bytes after the 101: the server may send its first message in the same read.
                    try pipeline.addHTTPClientHandlers(
                        leftOverBytesStrategy: .forwardBytes,
                        withClientUpgrade: (
                            upgraders: [upgrader],
                            completionHandler: { context in
                                context.pipeline.syncOperations.removeHandler(name: UpgradeRequest.name, promise: nil)
                            }
                        ))
                    try pipeline.addHandler(
                        UpgradeRequest(host: "127.0.0.1:\(port)", path: path, token: token), name: UpgradeRequest.name)
                }
            }
            .connect(host: "127.0.0.1", port: port)
    }

    var channel: any Channel { context!.channel }

    /// Sends one text message (masked, as a client must); false once the socket is closing.
    @discardableResult
    func send(text: String) -> Bool {
        guard !isClosing, let context else { return false }
        let frame = WebSocketFrame(
            fin: true, opcode: .text, maskKey: .random(), data: context.channel.allocator.buffer(string: text))
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        return true
    }

    /// Starts the close handshake: the server answers with its own close frame and ends the connection.
    func close() {
        guard !isClosing, let context else { return }
        isClosing = true
        var code = context.channel.allocator.buffer(capacity: 2)
        code.write(webSocketErrorCode: .normalClosure)
        context.writeAndFlush(
            wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: code)),
            promise: nil)
        let channel = context.channel
        context.eventLoop.assumeIsolated().scheduleTask(in: Self.closeTimeout) { channel.close(promise: nil) }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        listener.opened(self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            listener.received(frame.unmaskedData)
        case .ping:
            guard !isClosing else { return }
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            answerClose(frame, context)
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// The server's close: answered with its code when we had not closed yet, and the connection ended.
    private func answerClose(_ frame: WebSocketFrame, _ context: ChannelHandlerContext) {
        guard !isClosing else {
            context.close(promise: nil)
            return
        }
        isClosing = true
        let data = frame.unmaskedData
        let code = data.getSlice(at: data.readerIndex, length: min(2, data.readableBytes)) ?? ByteBuffer()
        context.writeAndFlush(
            wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: code))
        ).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

/// Sends the upgrade request when the connection is up (the upgrade handler adds its headers), and ends a
/// connection whose upgrade was refused; removed once the upgrade succeeds.
private final class UpgradeRequest: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    static let name = "bench-socket-upgrade-request"

    private let host: String
    private let path: String
    private let token: String

    init(host: String, path: String, token: String) {
        self.host = host
        self.path = path
        self.token = token
    }

    func channelActive(context: ChannelHandlerContext) {
        let headers: HTTPHeaders = [
            "Host": host, "Content-Length": "0", "Sec-WebSocket-Protocol": "bearer, \(token)",
        ]
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
