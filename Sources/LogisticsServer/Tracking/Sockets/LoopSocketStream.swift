import Foundation
import Hummingbird
import LogisticsCore
import NIOCore
import NIOWebSocket

/// How a loop-served stream starts, as its route decided at the upgrade: its name in metrics, its path for problem
/// documents, and the stream itself, made on the connection's event loop.
struct LoopSocketOpening: Sendable {
    let name: String
    let path: String
    let metrics: RequestMetrics
    /// How often the peer is pinged; one that has not answered the previous ping is cut.
    var pingInterval = LoopSocket.pingInterval
    let makeStream: @Sendable () -> any LoopSocketStream
}

/// A stream's side of a `LoopSocket`. Every call comes on the connection's event loop.
protocol LoopSocketStream: AnyObject, SendableMetatype {
    func opened(_ socket: LoopSocket)
    func received(text: String)
    /// A message the socket refused (its caller's allowance was spent), for the stream to answer.
    func refused(text: String, _ error: any Error, on socket: LoopSocket)
    /// The connection is gone; the stream lets go of the socket.
    func ended()
}

extension LoopSocketStream {
    func refused(text: String, _ error: any Error, on socket: LoopSocket) { socket.sendProblem(error) }
}

/// A stream that needs nothing from its upgrade request but the token: registered by its path alone.
protocol TokenSocketStream: LoopSocketStream {
    /// What the stream is made with, besides its token.
    associatedtype Collaborators: Sendable
    static var path: String { get }
    /// The stream's label in `websocket_connections` and `websocket_cut_off_total`.
    static var name: String { get }
    init(_ collaborators: Collaborators, token: String?)
}

extension TokenSocketStream {
    static func register(
        in router: Router<LogisticsRequestContext>, access: StreamAccess, _ collaborators: Collaborators
    ) {
        router.registerSocket(path) { request, _ in
            let token = SocketPolicy.bearerToken(request.headers)
            return LoopSocketOpening(
                name: name, path: path, metrics: access.metrics, pingInterval: access.pingInterval
            ) { Self(collaborators, token: token) }
        }
    }
}
