import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import LogisticsCore
import NIOCore
import NIOWebSocket
import ServiceLifecycle

/// What a socket handler waits for: the client's messages, and whatever feed the socket relays.
enum SocketEvent: Sendable {
    case clientText(String)
    case clientClosed
    case authenticationTimedOut
    case push(String)
    case feedClosed
    /// The server is shutting down gracefully: the socket closes with 1001 so the client reconnects elsewhere.
    case serverStopping
    /// The client fell behind (its backlog passed the limits) or sent too fast: closed with 4429.
    case overloaded(reason: String)
    /// The token the socket was opened with is no longer accepted: closed with 4401, the client signs in again
    /// and resumes.
    case tokenExpired

    /// What the event weighs in the socket's backlog; nil for events that are not messages to the client.
    var backlogBytes: Int? {
        switch self {
        case .push(let text): text.utf8.count
        default: nil
        }
    }
}

/// The plumbing of a task-served socket (the dispatch stream): one reader turning the client's frames into events,
/// the token taken from the `Sec-WebSocket-Protocol` pair `bearer, <token>` or from the first message, and refusals
/// sent as an `error` message with the problem document and a close code of 4000 + the HTTP status. Its limits and
/// helpers are the policy of every socket; the loop-served ones (`LoopSocket`) use them too.
///
/// Refusals come after the upgrade because an upgrade refused before it happens gets an empty 400 from the upgrade
/// channel (`SocketUpgradeChannel`), and a browser's WebSocket never shows its client why. Plain `GET`s on the same paths answer the same
/// cases with the HTTP statuses.
struct SocketSession {
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
    /// reads nothing fills before its backlog even starts to count: with 200 stuck dispatchers on a 1,000 fixes/s
    /// stream that was ~9 s of writes into the void, and the healthy sockets' p99 went from 1 ms to 1-2 s. 32 KiB
    /// (the kernel doubles it) still carries a busy dispatcher stream (~200 KB/s) over a 200 ms round trip.
    static let sendBuffer: Int32 = 32 * 1024
    /// What NIO holds for the socket before its writes wait, for the same reason (its default is 64 KiB).
    static let pendingWrites = ChannelOptions.Types.WriteBufferWaterMark(low: 8 * 1024, high: 16 * 1024)

    let outbound: WebSocketOutboundWriter
    let path: String
    private(set) var events: AsyncStream<SocketEvent>.AsyncIterator
    let sink: AsyncStream<SocketEvent>.Continuation
    let backlog: SocketBacklog
    /// The connection itself, to cut when a polite close cannot get through (a client that reads nothing).
    let channel: (any Channel)?
    /// Counts a socket closed for its client's behaviour, by reason.
    let cutOff: @Sendable (_ reason: String) -> Void
    /// Run when the session ends: timers and watches that are not tasks of their own.
    private var endings: [@Sendable () -> Void] = []

    /// Runs `body` with the client's messages flowing in; everything stops when `body` returns.
    static func run(
        _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, path: String, stream: String,
        metrics: RequestMetrics, channel: (any Channel)?, backlogLimits: SocketBacklog.Limits = SocketBacklog.standard,
        _ body: (inout SocketSession, inout ThrowingTaskGroup<Void, any Error>) async throws -> Void
    ) async throws {
        metrics.socketOpened(stream)
        defer { metrics.socketClosed(stream) }
        if let channel {
            // Queued on the connection's event loop ahead of anything this session writes.
            channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(sendBuffer))
                .and(channel.setOption(ChannelOptions.writeBufferWaterMark, value: pendingWrites))
                .whenComplete { _ in }
        }
        let (events, sink) = AsyncStream.makeStream(of: SocketEvent.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var allowance = TokenBucket(ratePerSecond: incomingPerSecond, burst: incomingBurst, now: Date())
                do {
                    for try await message in inbound.messages(maxSize: maximumMessage) {
                        guard allowance.take(now: Date()) else {
                            metrics.socketCutOff(stream, reason: "flood")
                            sink.yield(.overloaded(reason: "RATE_LIMITED: too many messages"))
                            return
                        }
                        switch message {
                        case .text(let text): sink.yield(.clientText(text))
                        case .binary(let buffer): sink.yield(.clientText(String(buffer: buffer)))
                        }
                    }
                } catch {}
                sink.yield(.clientClosed)
            }
            var session = SocketSession(
                outbound: outbound, path: path, events: events.makeAsyncIterator(), sink: sink,
                backlog: SocketBacklog(limits: backlogLimits), channel: channel,
                cutOff: { metrics.socketCutOff(stream, reason: $0) })
            defer {
                sink.finish()
                for end in session.endings { end() }
            }
            // Without this an open socket would hold a graceful shutdown (or a rolling restart) forever; a client
            // that reads nothing cannot even take the 1001, so its connection is cut after a grace period.
            try await withGracefulShutdownHandler {
                try await body(&session, &group)
            } onGracefulShutdown: {
                sink.yield(.serverStopping)
                sayGoingAway(channel)
                cut(channel, after: closeGrace)
            }
            group.cancelAll()
        }
    }

    /// Relays a feed into the session's events until it ends, or until the client has fallen so far behind that
    /// the socket is closed (4429).
    func relay<Feed: AsyncSequence & Sendable>(
        _ feed: Feed, into group: inout ThrowingTaskGroup<Void, any Error>,
        as event: @escaping @Sendable (Feed.Element) -> SocketEvent
    ) where Feed.Element: Sendable {
        let queue = self.queue
        group.addTask {
            for try await element in feed {
                guard queue.push(event(element)) else { return }
            }
            queue.sink.yield(.feedClosed)
        }
    }

    /// The session's events as feeds fill them: each message counted against the backlog, and past its limits the
    /// socket closed (4429) instead of queued to.
    private var queue: EventQueue {
        EventQueue(sink: sink, backlog: backlog, channel: channel, cutOff: cutOff)
    }

    private struct EventQueue: Sendable {
        let sink: AsyncStream<SocketEvent>.Continuation
        let backlog: SocketBacklog
        let channel: (any Channel)?
        let cutOff: @Sendable (_ reason: String) -> Void

        /// False once the client is too far behind; the socket is then on its way to being closed.
        func push(_ event: SocketEvent) -> Bool {
            guard backlog.admit(bytes: event.backlogBytes ?? 0) else {
                cutOff("behind")
                // The loop closes with 4429 if it gets to it; a client reading nothing never lets it.
                sink.yield(.overloaded(reason: "RATE_LIMITED: the client fell behind"))
                SocketSession.cut(channel, after: SocketSession.closeGrace)
                return false
            }
            sink.yield(event)
            return true
        }
    }

    /// The WebSocket library answers a graceful shutdown with its own close (1000) as soon as it hears of it, before
    /// this session's loop could say 1001. So 1001 is written straight to the connection, whose output is then
    /// shut: clients reconnect elsewhere, and nothing (the library's 1000 included) follows it.
    static func sayGoingAway(_ channel: (any Channel)?) {
        guard let channel else { return }
        var payload = channel.allocator.buffer(capacity: 32)
        payload.writeInteger(UInt16(1001))
        payload.writeString("server restarting; reconnect")
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)
        channel.writeAndFlush(frame).whenComplete { _ in channel.close(mode: .output, promise: nil) }
    }

    /// Closes the connection without a close handshake, after `delay` (a socket already closed is left alone).
    static func cut(_ channel: (any Channel)?, after delay: Duration) {
        guard let channel else { return }
        Task {
            try? await Task.sleep(for: delay)
            channel.close(promise: nil)
        }
    }

    /// The next event for the socket's loop. An overloaded socket is closed here with 4429 and its loop sees the
    /// client gone.
    mutating func next() async -> SocketEvent? {
        guard let event = await events.next() else { return nil }
        if let bytes = event.backlogBytes { backlog.taken(bytes: bytes) }
        switch event {
        case .overloaded, .tokenExpired:
            await close(for: event)
            return .clientClosed
        default:
            return event
        }
    }

    /// Apart from `next`, which every socket's loop runs for hours: a task keeps the memory of the deepest frames
    /// it ever ran, so rare paths stay out of the loop's.
    @inline(never)
    private func close(for event: SocketEvent) async {
        switch event {
        case .overloaded(let reason):
            try? await outbound.close(.unknown(4429), reason: reason)
        case .tokenExpired:
            try? await refuse(
                LogisticsError(.unauthenticated, "The token has expired; sign in again and reconnect with resumeFrom"))
        default:
            break
        }
    }

    /// Closes the socket (4401) when its token stops being accepted; `now` is the server clock's time. A timer on
    /// the connection's event loop, not a sleeping task: a task costs about 3 KiB for as long as it sleeps, which
    /// for a socket is hours (heaptrack, docs/scaling.md).
    mutating func closeWhenTokenExpires(
        _ validUntil: Date, now: Date, into group: inout ThrowingTaskGroup<Void, any Error>
    ) {
        let sink = self.sink
        let left = Int64(max(0, validUntil.timeIntervalSince(now)) * 1000)
        guard let channel else {
            group.addTask {
                try await Task.sleep(for: .milliseconds(left))
                sink.yield(.tokenExpired)
            }
            return
        }
        let timer = channel.eventLoop.scheduleTask(in: .milliseconds(left)) { sink.yield(.tokenExpired) }
        endings.append { timer.cancel() }
    }

    /// The token from the subprotocol pair, else from a first message `{"type":"auth","token":"…"}`.
    @inline(never)
    mutating func token(headers: HTTPFields) async throws -> String {
        if let token = Self.bearerToken(headers) { return token }
        let sink = self.sink
        let timer = Task {
            try await Task.sleep(for: Self.authenticationWindow)
            sink.yield(.authenticationTimedOut)
        }
        defer { timer.cancel() }
        while let event = await next() {
            switch event {
            case .clientText(let text):
                guard let first = try? JSONDecoder().decode(FirstMessage.self, from: Data(text.utf8)),
                    !first.token.isEmpty
                else {
                    throw LogisticsError(.unauthenticated, #"The first message must be {"type":"auth","token":"…"}"#)
                }
                return first.token
            case .clientClosed, .authenticationTimedOut, .serverStopping, .overloaded, .tokenExpired:
                throw LogisticsError(
                    .unauthenticated,
                    "Send the token as Sec-WebSocket-Protocol: bearer, <token> or as the first message")
            default:
                continue
            }
        }
        throw LogisticsError(.unauthenticated, "The connection closed before the token arrived")
    }

    private struct FirstMessage: Decodable {
        var token: String
    }

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

    func send(text: String) async throws {
        try await outbound.write(.text(text))
    }

    func send(_ value: some Encodable) async throws {
        try await send(text: String(decoding: try APIJSON.encoder.encode(value), as: UTF8.self))
    }

    /// An `error` message for a request the socket survives (a bad batch of fixes).
    @inline(never)
    func sendProblem(_ error: any Error, reference: String? = nil) async throws {
        try await send(text: Self.problemMessage(for: error, path: path, reference: reference))
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

    /// The close for a server that is shutting down.
    func closeForShutdown() async {
        try? await outbound.close(.goingAway, reason: "server restarting; reconnect")
    }

    /// The refusal that ends the socket: the problem, then a close with 4000 + its HTTP status.
    @inline(never)
    func refuse(_ error: any Error) async throws {
        let problem = ProblemDocument.problem(for: error)
        try await sendProblem(error)
        try await outbound.close(.unknown(UInt16(4000 + problem.code.httpStatus)), reason: problem.code.rawValue)
    }
}
