import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import LogisticsCore
import ServiceLifecycle

/// What a socket handler waits for: the client's messages, and whatever feed the socket relays.
enum SocketEvent: Sendable {
    case clientText(String)
    case clientClosed
    case authenticationTimedOut
    case tracking(TrackingMessage)
    case push(String)
    case feedClosed
    /// The server is shutting down gracefully: the socket closes with 1001 so the client reconnects elsewhere.
    case serverStopping
}

/// The plumbing every socket shares: one reader turning the client's frames into events, the token taken from
/// the `Sec-WebSocket-Protocol` pair `bearer, <token>` or from the first message, and refusals sent as an `error`
/// message with the problem document and a close code of 4000 + the HTTP status.
///
/// Refusals come after the upgrade because Hummingbird 2 answers every refused upgrade with a 307 redirect, so a
/// status sent before it would never reach a WebSocket client. Plain `GET`s on the same paths answer the same
/// cases with the HTTP statuses.
struct SocketSession {
    static let maximumMessage = 256 * 1024
    /// How long a client that did not send the token as a subprotocol has to send it as its first message.
    static let authenticationWindow: Duration = .seconds(5)

    let outbound: WebSocketOutboundWriter
    let path: String
    private(set) var events: AsyncStream<SocketEvent>.AsyncIterator
    let sink: AsyncStream<SocketEvent>.Continuation

    /// Runs `body` with the client's messages flowing in; everything stops when `body` returns.
    static func run(
        _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, path: String, stream: String,
        metrics: RequestMetrics,
        _ body: (inout SocketSession, inout ThrowingTaskGroup<Void, any Error>) async throws -> Void
    ) async throws {
        metrics.socketOpened(stream)
        defer { metrics.socketClosed(stream) }
        let (events, sink) = AsyncStream.makeStream(of: SocketEvent.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await message in inbound.messages(maxSize: maximumMessage) {
                        switch message {
                        case .text(let text): sink.yield(.clientText(text))
                        case .binary(let buffer): sink.yield(.clientText(String(buffer: buffer)))
                        }
                    }
                } catch {}
                sink.yield(.clientClosed)
            }
            var session = SocketSession(
                outbound: outbound, path: path, events: events.makeAsyncIterator(), sink: sink)
            defer { sink.finish() }
            // Without this an open socket would hold a graceful shutdown (or a rolling restart) forever.
            try await withGracefulShutdownHandler {
                try await body(&session, &group)
            } onGracefulShutdown: {
                sink.yield(.serverStopping)
            }
            group.cancelAll()
        }
    }

    /// Relays a feed into the session's events until it ends.
    static func relay<Feed: AsyncSequence & Sendable>(
        _ feed: Feed, into group: inout ThrowingTaskGroup<Void, any Error>, sink: AsyncStream<SocketEvent>.Continuation,
        as event: @escaping @Sendable (Feed.Element) -> SocketEvent
    ) where Feed.Element: Sendable {
        group.addTask {
            for try await element in feed { sink.yield(event(element)) }
            sink.yield(.feedClosed)
        }
    }

    mutating func next() async -> SocketEvent? { await events.next() }

    /// The token from the subprotocol pair, else from a first message `{"type":"auth","token":"…"}`.
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
            case .clientClosed, .authenticationTimedOut, .serverStopping:
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
    static func shouldUpgrade(_ request: Request) -> RouterShouldUpgrade {
        .upgrade(bearerToken(request.headers) == nil ? [:] : [.secWebSocketProtocol: "bearer"])
    }

    func send(text: String) async throws {
        try await outbound.write(.text(text))
    }

    func send(_ value: some Encodable) async throws {
        try await send(text: String(decoding: try APIJSON.encoder.encode(value), as: UTF8.self))
    }

    /// An `error` message for a request the socket survives (a bad batch of fixes).
    func sendProblem(_ error: any Error, reference: String? = nil) async throws {
        let problem = ProblemDocument.problem(for: error)
        let document = String(decoding: ProblemDocument.render(problem, instance: path, requestId: ""), as: UTF8.self)
        let ref =
            reference.flatMap { try? JSONEncoder().encode($0) }.map {
                #","ref":"# + String(decoding: $0, as: UTF8.self)
            }
            ?? ""
        try await send(text: #"{"type":"error","problem":"# + document + ref + "}")
    }

    /// The close for a server that is shutting down.
    func closeForShutdown() async {
        try? await outbound.close(.goingAway, reason: "server restarting; reconnect")
    }

    /// The refusal that ends the socket: the problem, then a close with 4000 + its HTTP status.
    func refuse(_ error: any Error) async throws {
        let problem = ProblemDocument.problem(for: error)
        try await sendProblem(error)
        try await outbound.close(.unknown(UInt16(4000 + problem.code.httpStatus)), reason: problem.code.rawValue)
    }
}
