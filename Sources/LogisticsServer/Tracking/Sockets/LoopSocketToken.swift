import Foundation
import Hummingbird
import LogisticsCore
import NIOCore
import NIOWebSocket

/// The token of a loop-served stream: from the `bearer, <token>` subprotocol, or else from a first message
/// `{"type":"auth","token":"…"}` within `SocketPolicy.authenticationWindow`.
struct LoopSocketToken {
    /// Calls `start` with the token from the upgrade's subprotocol now, or else waits for the first message
    /// (`LoopSocketToken.from(firstMessage:)`), refusing with 4401 when none came in time.
    static func await(
        _ token: String?, on socket: LoopSocket, isWaiting: @escaping () -> Bool, start: (String) -> Void
    ) {
        if let token {
            start(token)
            return
        }
        socket.after(TimeAmount(SocketPolicy.authenticationWindow)) { socket in
            guard isWaiting() else { return }
            socket.refuse(
                LogisticsError(
                    .unauthenticated,
                    "Send the token as Sec-WebSocket-Protocol: bearer, <token> or as the first message"
                ))
        }
    }

    /// The token of a first message, or nil after refusing the socket (4401).
    static func from(firstMessage text: String, _ socket: LoopSocket?) -> String? {
        guard let first = try? JSONDecoder().decode(FirstMessage.self, from: Data(text.utf8)), !first.token.isEmpty
        else {
            socket?.refuse(LogisticsError(.unauthenticated, #"The first message must be {"type":"auth","token":"…"}"#))
            return nil
        }
        return first.token
    }

    private struct FirstMessage: Decodable {
        var token: String
    }

    /// Checks the token off the loop, then hands the caller and until when its token is accepted back to
    /// `stream` on the loop; a token refused, or a caller `admit` refuses (by throwing), closes the socket.
    static func signIn<Stream: LoopSocketStream>(
        _ token: String, admission: BearerAdmission, on socket: LoopSocket, for stream: Stream,
        admit: @escaping @Sendable (Actor) throws -> Void,
        then signedIn: @escaping @Sendable (Stream, Actor, Date) -> Void
    ) {
        let handle = socket.handle(stream)
        let refusing = socket.handle(socket)
        Task {
            do {
                let (actor, validUntil) = try await admission.admission(bearer: token)
                try admit(actor)
                handle.execute { signedIn($0, actor, validUntil) }
            } catch {
                refusing.execute { $0.refuse(error) }
            }
        }
    }
}

/// A loop-served stream, reachable from any thread: the work runs on the connection's event loop.
struct LoopHandle<Value: AnyObject>: Sendable {
    let bound: NIOLoopBound<Value>
    let eventLoop: any EventLoop

    func execute(_ work: @escaping @Sendable (Value) -> Void) {
        let bound = self.bound
        eventLoop.execute { work(bound.value) }
    }

    /// `work` once the loop has read what its sockets hold, for answers that can wait that long (`AfterReadsQueue`).
    func executeAfterReads(_ work: @escaping @Sendable (Value) -> Void) {
        let bound = self.bound
        AfterReadsQueue.of(eventLoop).post { work(bound.value) }
    }
}
