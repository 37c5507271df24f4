import Foundation
import HTTPTypes
import Hummingbird
import LogisticsCore
import NIOCore

/// What every socket allows and how it speaks: sizes, limits, the token as a subprotocol, and refusals as an
/// `error` message with the problem document and a close code of 4000 + the HTTP status.
///
/// Refusals come after the upgrade because an upgrade refused before it happens gets an empty 400 from the upgrade
/// channel (`SocketUpgradeChannel`), and a browser's WebSocket never shows its client why. Plain `GET`s on the same
/// paths answer the same cases with the HTTP statuses.
enum SocketPolicy {
    /// A rider's batch of 500 fixes fits in one message.
    static let maximumMessage = 256 * 1024
    /// How long a client that did not send the token as a subprotocol has to send it as its first message.
    static let authenticationWindow: Duration = .seconds(5)
    /// What a client may send: a phone's batches of fixes come every few seconds; a burst after a reconnect is
    /// fine, a flood is not.
    static let incomingPerSecond = 20.0
    static let incomingBurst = 100.0
    /// A client that cannot take even its close frame in this long has its connection cut.
    static let closeGrace: Duration = .seconds(2)
    /// The kernel's send buffer for an upgraded socket. Left to itself Linux grows it to 4 MiB, which a client that
    /// reads nothing fills before its backlog even starts to count: with many stuck dispatchers on a busy stream
    /// that was seconds of writes into the void each, and the healthy sockets' latency went from milliseconds to
    /// seconds. 32 KiB (the kernel doubles it) still carries a busy dispatcher stream over a 200 ms round trip.
    static let sendBuffer: Int32 = 32 * 1024
    /// What NIO holds for the socket before its writes wait, for the same reason (its default is 64 KiB).
    static let pendingWrites = ChannelOptions.Types.WriteBufferWaterMark(low: 8 * 1024, high: 16 * 1024)
    /// What a socket may hold for its client beyond what the network already took (the kernel's send buffer and
    /// NIO's pending writes, ~80 KiB together). A client this far behind on a busy stream will not catch up; past
    /// either limit the socket is closed (4429) instead of the server growing until it dies.
    static let backlogMessages = 1_000
    static let backlogBytes = 256 * 1024
    /// A customer socket's `resumeFrom` that needs a new snapshot (a database read and a route) is served once
    /// in this long; a replay from memory is not limited beyond the caller's allowance.
    static let resyncInterval: Duration = .seconds(5)

    /// A browser cannot set `Authorization` on a socket, so the token travels as the subprotocol pair
    /// `bearer, <jwt>` — never in the URL, where logs and proxies would keep it.
    static func bearerToken(_ headers: HTTPFields) -> String? {
        guard let value = headers[.secWebSocketProtocol] else { return nil }
        let parts = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else { return nil }
        return parts[1]
    }

    /// Browsers refuse a socket whose server does not echo one of the offered subprotocols.
    static func upgradeHeaders(_ request: Request) -> HTTPFields {
        bearerToken(request.headers) == nil ? [:] : [.secWebSocketProtocol: "bearer"]
    }

    /// `{"type":"error","problem":{…}}`, with the `ref` of the request it answers if any.
    static func problemMessage(for error: any Error, path: String, reference: String? = nil) -> String {
        let problem = ProblemDocument.problem(for: error)
        let document = String(decoding: ProblemDocument.render(problem, instance: path, requestId: ""), as: UTF8.self)
        let ref =
            reference.flatMap { try? JSONEncoder().encode($0) }.map {
                #","ref":"# + String(decoding: $0, as: UTF8.self)
            }
            ?? ""
        return #"{"type":"error","problem":"# + document + ref + "}"
    }
}
