import Hummingbird
import Synchronization

/// Where a socket route leaves the stream it accepted the upgrade for; `SocketUpgradeChannel` reads it once the
/// route has answered 200.
public final class SocketUpgradeChoice: Sendable {
    private let value = Mutex<LoopSocketOpening?>(nil)

    var chosen: LoopSocketOpening? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

extension Router where Context == LogisticsRequestContext {
    /// The one place a WebSocket stream is put on the socket router: the route (and its middleware) decides whether
    /// to upgrade, and which stream the socket will serve.
    func registerSocket(
        _ path: String, _ opening: @escaping @Sendable (Request, LogisticsRequestContext) -> LoopSocketOpening
    ) {
        get(RouterPath(path)) { request, context -> Response in
            context.socketUpgrade.chosen = opening(request, context)
            return Response(status: .ok, headers: SocketPolicy.upgradeHeaders(request))
        }
    }
}
