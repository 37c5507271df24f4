import Foundation
import Hummingbird
import LogisticsCore

/// `WS /api/v1/dispatch/stream` (dispatchers and admins): every rider's fixes as `riderLocation` messages and
/// every order event as `event` messages carrying the outbox's event document. A dispatcher that falls too far
/// behind is disconnected (4429) and reconnects; the order event log has everything missed.
final class DispatchStreamSocket: TokenSocketStream {
    static let path = "/api/v1/dispatch/stream"
    static let name = "dispatch"

    private enum Phase { case awaitingToken, signingIn, watching, done }

    private let access: StreamAccess
    private let token: String?
    private var socket: LoopSocket?
    private var phase = Phase.awaitingToken

    init(_ access: StreamAccess, token: String?) {
        self.access = access
        self.token = token
    }

    func opened(_ socket: LoopSocket) {
        self.socket = socket
        LoopSocketToken.await(token, on: socket, isWaiting: { self.phase == .awaitingToken }, start: signIn)
    }

    func received(text: String) {
        guard phase == .awaitingToken else { return }
        if let token = LoopSocketToken.from(firstMessage: text, socket) { signIn(token) }
    }

    func ended() {
        phase = .done
        socket = nil
    }

    private func signIn(_ token: String) {
        guard let socket else { return }
        phase = .signingIn
        LoopSocketToken.signIn(
            token, admission: access.admission, on: socket, for: self,
            admit: {
                guard $0.role == .dispatcher || $0.role == .admin else {
                    throw LogisticsError(.forbidden, "The dispatch stream is for dispatchers and admins")
                }
            }
        ) { stream, actor, validUntil in stream.signedIn(actor, validUntil: validUntil) }
    }

    private func signedIn(_ actor: Actor, validUntil: Date) {
        guard phase == .signingIn, let socket, socket.admit(.signedIn(actor.id), limits: access.callers) else {
            return
        }
        socket.closeWhenTokenExpires(validUntil, now: access.clock.now())
        socket.closeWhenSignInEnds(actor, watch: access.revocationWatch)
        let (hub, handle) = (access.hub, socket.handle(self))
        let watcher = hub.watchEverything { message in handle.execute { $0.socket?.send(text: message) } }
        socket.onEnd { hub.stopWatching(watcher) }
        socket.send(text: #"{"type":"ready"}"#)
        phase = .watching
    }
}
