import Hummingbird
import HummingbirdWebSocket
import Logging
import Synchronization

/// What a socket route chose for the connection when it accepted the upgrade; `SocketUpgradeChannel` reads it once
/// the route has answered 200.
enum SocketUpgrade: Sendable {
    /// Served by a task for as long as the socket is open, with Hummingbird's WebSocket handler.
    case tasks(WebSocketDataHandler<SocketContext>, SocketContext)
    /// Served by callbacks on the connection's event loop.
    case loop(LoopSocketOpening)
}

/// Where a socket route leaves its `SocketUpgrade`.
public final class SocketUpgradeChoice: Sendable {
    private let value = Mutex<SocketUpgrade?>(nil)

    var chosen: SocketUpgrade? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// The upgrade request and its context, for a task-served socket.
struct SocketContext: WebSocketContext {
    let request: Request
    let requestContext: LogisticsRequestContext

    var logger: Logger { requestContext.logger }
}
