import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
import Synchronization

/// HTTP/1 with WebSocket upgrades served by callbacks on the connection's event loop (`LoopSocket`), with no task
/// of their own. Hummingbird's `HTTP1WebSocketUpgradeChannel` hands an upgraded connection to a task that lives as
/// long as the socket, with two more beside it (the frame reader and the pinger), and a task keeps its stack for
/// its whole life: that was most of a socket's memory. Here the connection's task ends once the upgrade is done.
struct SocketUpgradeChannel: ServerChildChannel, HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        /// Served on the event loop already; nothing is left for the connection's task.
        case socket
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case failedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, Logger)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    struct Configuration: Sendable {
        var http1 = HTTP1Channel.Configuration()
        var maximumMessage = SocketPolicy.maximumMessage
    }

    let responder: HTTPChannelHandler.Responder
    let configuration: Configuration
    private let shouldUpgrade:
        @Sendable (HTTPRequest, any Channel, Logger) -> EventLoopFuture<(HTTPFields, LoopSocketOpening)?>

    init(
        responder: @escaping HTTPChannelHandler.Responder, socketResponder: RouterResponder<LogisticsRequestContext>,
        configuration: Configuration = Configuration()
    ) {
        self.configuration = configuration
        self.responder = Self.redirectingUpgrades(responder)
        self.shouldUpgrade = { head, channel, logger in
            let promise = channel.eventLoop.makePromise(of: (HTTPFields, LoopSocketOpening)?.self)
            promise.completeWithTask {
                let request = Request(head: head, body: .init(buffer: .init()))
                let context = LogisticsRequestContext(source: .init(channel: channel, logger: logger))
                guard let response = try? await socketResponder.respond(to: request, context: context),
                    response.status == .ok, let opening = context.socketUpgrade.chosen
                else { return nil }
                return (response.headers, opening)
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
            let chosen = Mutex<LoopSocketOpening?>(nil)
            let maximumMessage = configuration.maximumMessage
            let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                maxFrameSize: maximumMessage,
                shouldUpgrade: { channel, head in
                    upgradeAttempted.value = true
                    let request: HTTPRequest
                    do {
                        request = try HTTPRequest(head, secure: false, splitCookie: false)
                    } catch {
                        return channel.eventLoop.makeFailedFuture(error)
                    }
                    return shouldUpgrade(request, channel, logger).map { result in
                        guard let (headers, opening) = result else { return nil }
                        chosen.withLock { $0 = opening }
                        return HTTPHeaders(headers)
                    }
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        guard let opening = chosen.withLock({ $0 }) else {
                            preconditionFailure("an upgrade runs only after shouldUpgrade accepted it")
                        }
                        try LoopSocket.install(on: channel, opening, maximumMessage: maximumMessage)
                        return .socket
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
            case .socket:
                break
            }
        } catch  where Self.peerLeft(error) {
            // A page reloaded or closed while its socket was being opened: nothing went wrong on this side.
            logger.debug("Connection closed before its upgrade finished", metadata: ["error.type": "\(error)"])
        } catch {
            logger.error("Error handling upgrade result", metadata: ["error.type": .string("\(error)")])
        }
    }

    /// The errors of a connection its client closed or reset mid-request: NIO's typed upgrade fails its result with
    /// `inappropriateOperationForState` when the connection ends before the request head is complete.
    static func peerLeft(_ error: any Error) -> Bool {
        if let error = error as? ChannelError {
            return [
                .inputClosed, .outputClosed, .eof, .ioOnClosedChannel, .alreadyClosed, .inappropriateOperationForState,
            ]
            .contains(error)
        }
        if let error = error as? IOError { return [ECONNRESET, EPIPE, ETIMEDOUT].contains(error.errnoCode) }
        return error is CancellationError
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
