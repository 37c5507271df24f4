import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
import Synchronization
@_spi(WSInternal) import WSCore

/// HTTP/1 with WebSocket upgrades, as Hummingbird's `HTTP1WebSocketUpgradeChannel`, plus one more kind of upgrade:
/// a socket served by callbacks on its connection's event loop (`LoopSocket`), with no task of its own. A task
/// keeps its stack for as long as the connection lives, and Hummingbird's sockets hold three (the connection's, the
/// reader's and the pinger's): most of a socket's ~40 KiB. The customer tracking stream, the one that comes by the
/// ten thousand, is served this way; the others stay on Hummingbird's task-per-socket handlers.
struct SocketUpgradeChannel: ServerChildChannel, HTTPChannelHandler {
    typealias TaskSocketHandler = @Sendable (NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, Logger) async -> Void

    enum Upgrade: Sendable {
        case tasks(TaskSocketHandler)
        case loop(LoopSocketOpening)
    }

    enum UpgradeResult: Sendable {
        case tasks(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, TaskSocketHandler, Logger)
        /// Served on the event loop already; nothing is left for the connection's task.
        case loop
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case failedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, Logger)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let configuration: HTTP1WebSocketUpgradeChannel.Configuration
    private let shouldUpgrade:
        @Sendable (HTTPRequest, any Channel, Logger) -> EventLoopFuture<ShouldUpgradeResult<Upgrade>>

    init(
        responder: @escaping HTTPChannelHandler.Responder, webSocketResponder: RouterResponder<LogisticsRequestContext>,
        configuration: HTTP1WebSocketUpgradeChannel.Configuration
    ) {
        self.configuration = configuration
        self.responder = Self.redirectingUpgrades(responder)
        self.shouldUpgrade = { head, channel, logger in
            let promise = channel.eventLoop.makePromise(of: ShouldUpgradeResult<Upgrade>.self)
            promise.completeWithTask {
                let request = Request(head: head, body: .init(buffer: .init()))
                let context = LogisticsRequestContext(source: .init(channel: channel, logger: logger))
                guard let response = try? await webSocketResponder.respond(to: request, context: context),
                    response.status == .ok, let upgrade = context.socketUpgrade.chosen
                else { return .dontUpgrade }
                switch upgrade {
                case .loop(let opening):
                    return .upgrade(response.headers, .loop(opening))
                case .tasks(let handler, let socketContext):
                    let ws = configuration.ws
                    return .upgrade(
                        response.headers,
                        .tasks { asyncChannel, logger in
                            do {
                                _ = try await WebSocketHandler.handle(
                                    type: .server,
                                    configuration: .init(
                                        extensions: [], autoPing: ws.autoPing, closeTimeout: ws.closeTimeout,
                                        validateUTF8: ws.validateUTF8, maxFrameSize: ws.maxFrameSize),
                                    asyncChannel: asyncChannel, context: socketContext, handler: handler)
                            } catch {
                                logger.debug("WebSocket handler error", metadata: ["error.type": "\(error)"])
                            }
                        })
                }
            }
            return promise.futureResult
        }
    }

    /// NIO cannot upgrade a connection that already carried a plain request, so such an upgrade is redirected to
    /// the same URI on a fresh connection (as Hummingbird does).
    private static func redirectingUpgrades(_ responder: @escaping HTTPChannelHandler.Responder)
        -> HTTPChannelHandler.Responder
    {
        struct RedirectClose: Error {}
        return { request, responseWriter, channel in
            guard request.headers[.upgrade] == "websocket" else {
                try await responder(request, responseWriter, channel)
                return
            }
            let location = request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
            try await responseWriter.writeResponse(
                HTTPResponse(status: .temporaryRedirect, headerFields: [.connection: "close", .location: location]))
            throw RedirectClose()
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let upgradeAttempted = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
            let chosen = Mutex<Upgrade?>(nil)
            let ws = configuration.ws
            let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                maxFrameSize: ws.maxFrameSize,
                shouldUpgrade: { channel, head in
                    upgradeAttempted.value = true
                    let request: HTTPRequest
                    do {
                        request = try HTTPRequest(head, secure: false, splitCookie: false)
                    } catch {
                        return channel.eventLoop.makeFailedFuture(error)
                    }
                    return shouldUpgrade(request, channel, logger).map { result in
                        guard case .upgrade(let headers, let upgrade) = result else { return nil }
                        chosen.withLock { $0 = upgrade }
                        return HTTPHeaders(headers)
                    }
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        switch chosen.withLock({ $0 }) {
                        case .loop(let opening):
                            try LoopSocket.install(on: channel, opening, maximumMessage: ws.maxFrameSize)
                            return .loop
                        case .tasks(let handler):
                            let asyncChannel = try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(
                                wrappingChannelSynchronously: channel,
                                configuration: .init(isOutboundHalfClosureEnabled: true))
                            return .tasks(asyncChannel, handler, logger)
                        case nil:
                            preconditionFailure("an upgrade runs only after shouldUpgrade accepted it")
                        }
                    }
                })
            let http1 = configuration.http1
            let serverUpgrade = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try pipeline.addHandlers(http1.additionalChannelHandlers())
                        try pipeline.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: http1.idleTimeout.map { .init($0) }, logger: logger)
                        )
                        let asyncChannel = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true))
                        return upgradeAttempted.value
                            ? UpgradeResult.failedUpgrade(asyncChannel, logger) : .notUpgraded(asyncChannel)
                    }
                })
            var pipeline = NIOUpgradableHTTPServerPipelineConfiguration<UpgradeResult>(
                upgradeConfiguration: serverUpgrade)
            pipeline.enablePipelining = false
            pipeline.enableErrorHandling = false
            pipeline.enableResponseHeaderValidation = false
            pipeline.decoderConfiguration.maxHeaderFieldSize = http1.httpDecoder.maxHeaderFieldSize
            pipeline.decoderConfiguration.maxHeaderListSize = http1.httpDecoder.maxHeaderListSize
            pipeline.decoderConfiguration.maxHeaderFieldCount = http1.httpDecoder.maxHeaderFieldCount
            let result = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                configuration: pipeline)
            return Value(upgradeResult: result, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgradeResult.get() {
            case .notUpgraded(let http1):
                await handleHTTP(asyncChannel: http1, logger: logger)
            case .failedUpgrade(let http1, let logger):
                logger.debug("WebSocket upgrade failed")
                await answerFailedUpgrade(http1, logger: logger)
            case .tasks(let asyncChannel, let handler, let logger):
                await handler(asyncChannel, logger)
            case .loop:
                break
            }
        } catch let error as ChannelError where error == .inputClosed {
            logger.trace("Upgrade failed as input was closed")
        } catch {
            logger.error("Error handling upgrade result", metadata: ["error.type": .string("\(error)")])
        }
    }

    private func answerFailedUpgrade(
        _ asyncChannel: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, logger: Logger
    ) async {
        do {
            try await asyncChannel.executeThenClose { _, outbound in
                let head = HTTPResponse(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])
                try await outbound.write(contentsOf: [.head(head), .end(nil)])
            }
        } catch {
            logger.trace("Failed to write to Channel. Error: \(error)")
        }
    }
}
