import Hummingbird
import HummingbirdWebSocket

/// One of the server's WebSocket streams: its path, its name in metrics, and what it does once the socket is open.
/// Everything around that — the upgrade, the token as a subprotocol, the shared `SocketSession` plumbing, metrics,
/// graceful shutdown — is the same for every stream and lives in `register(_:)` alone.
protocol SocketStream: Sendable {
    static var path: String { get }
    /// The stream's label in `websocket_connections` and `websocket_cut_off_total`.
    static var name: String { get }
    var services: LogisticsServices { get }

    func serve(
        _ session: inout SocketSession, _ group: inout ThrowingTaskGroup<Void, any Error>,
        _ context: SocketContext
    ) async throws
}

extension Router where Context == LogisticsRequestContext {
    /// The one place a WebSocket stream is put on the router.
    func register(_ stream: some SocketStream) {
        let path = type(of: stream).path
        let name = type(of: stream).name
        get(RouterPath(path)) { request, context -> Response in
            let handler: WebSocketDataHandler<SocketContext> = { inbound, outbound, context in
                try await SocketSession.run(
                    inbound, outbound, path: path, stream: name, metrics: stream.services.metrics,
                    channel: context.requestContext.channel
                ) { session, group in
                    try await stream.serve(&session, &group, context)
                }
            }
            context.socketUpgrade.chosen = .tasks(handler, SocketContext(request: request, requestContext: context))
            return Response(status: .ok, headers: SocketSession.upgradeHeaders(request))
        }
    }

    /// A stream served on its connection's event loop (`LoopSocket`): the route only says which.
    func register(
        loop path: String, _ opening: @escaping @Sendable (Request, LogisticsRequestContext) -> LoopSocketOpening
    ) {
        get(RouterPath(path)) { request, context -> Response in
            context.socketUpgrade.chosen = .loop(opening(request, context))
            return Response(status: .ok, headers: SocketSession.upgradeHeaders(request))
        }
    }
}
