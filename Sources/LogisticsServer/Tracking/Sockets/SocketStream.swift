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
        _ context: WebSocketRouterContext<LogisticsRequestContext>
    ) async throws
}

extension Router where Context == LogisticsRequestContext {
    /// The one place a WebSocket stream is put on the router.
    func register(_ stream: some SocketStream) {
        let path = type(of: stream).path
        let name = type(of: stream).name
        ws(
            RouterPath(path),
            shouldUpgrade: { request, _ in SocketSession.shouldUpgrade(request) },
            onUpgrade: { inbound, outbound, context in
                try await SocketSession.run(
                    inbound, outbound, path: path, stream: name, metrics: stream.services.metrics,
                    channel: context.requestContext.channel
                ) { session, group in
                    try await stream.serve(&session, &group, context)
                }
            })
    }
}
