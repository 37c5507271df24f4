import Foundation
import Synchronization

/// What a socket holds for its client beyond what the network already took: messages relayed from the feeds and
/// not yet written. A client that stops reading makes writes wait, so this grows; past its limits the socket is
/// closed (4429) instead of the server growing until it dies.
final class SocketBacklog: Sendable {
    struct Limits: Sendable {
        var messages: Int
        var bytes: Int
    }

    /// The backlog only grows once the kernel's send buffer and NIO's pending writes (~80 KiB together, see
    /// `SocketSession.sendBuffer`) are full; a dispatcher this far behind on a busy stream will not catch up. The
    /// bound of what one socket can make the process hold.
    static let standard = Limits(messages: 1_000, bytes: 256 * 1024)

    private struct State {
        var messages = 0
        var bytes = 0
        var overflowed = false
    }

    private let state = Mutex(State())
    let limits: Limits

    init(limits: Limits = SocketBacklog.standard) { self.limits = limits }

    /// Counts a message queued for the client. False once the backlog is over its limits: the first caller to get
    /// false closes the socket; nothing more is queued.
    func admit(bytes: Int) -> Bool {
        state.withLock { state in
            guard !state.overflowed else { return false }
            state.messages += 1
            state.bytes += bytes
            if state.messages > limits.messages || state.bytes > limits.bytes { state.overflowed = true }
            return !state.overflowed
        }
    }

    /// A queued message was taken for writing.
    func taken(bytes: Int) {
        state.withLock { state in
            state.messages -= 1
            state.bytes -= bytes
        }
    }
}
