import Foundation
import HummingbirdWSClient
import Logging
import NIOSSL
import Synchronization
import Testing

/// A client socket in a test: connects with `Sec-WebSocket-Protocol: bearer, <token>` (or sends the token as its
/// first message), keeps every text message, and sends what the test asks it to.
final class TrackingFollower: Sendable {
    final class Storage: Sendable {
        let texts = Mutex<[String]>([])
        /// Whether the server closed with 1000 (nil until the socket ends, or when it ended without a close frame).
        let closedNormally = Mutex<Bool?>(nil)
        /// The close code the server sent, when it was an application code (4000–4999).
        let applicationCloseCode = Mutex<UInt16?>(nil)
    }

    let storage = Storage()
    private let task: Task<Void, any Error>
    private let outgoing: AsyncStream<String>.Continuation
    /// Attempts at connecting; see `init`.
    static let attempts = 3
    /// All our sockets speak within 5 s of opening (the rider socket waits 5 s for a token before refusing).
    static let silenceLimit: Duration = .seconds(8)

    /// A customer following an order.
    convenience init(
        port: Int, orderId: String, token: String, resumeFrom: Int? = nil, stream: String? = nil,
        stopAfter: Int = .max, tokenInFirstMessage: Bool = false
    ) {
        self.init(
            port: port, path: "/api/v1/customer/orders/\(orderId)/tracking", token: token,
            tokenInFirstMessage: tokenInFirstMessage, stopAfter: stopAfter,
            initialMessages: resumeFrom.map {
                [#"{"resumeFrom": \#($0)"# + (stream.map { #", "stream": "\#($0)""# } ?? "") + "}"]
            } ?? [])
    }

    /// Connects and keeps what arrives. HummingbirdWSClient now and then (about one connection in a few hundred
    /// on a loaded 2-core machine) never delivers anything when the server's first frames arrive together with
    /// its 101 response; such a connection is abandoned after 8 s of silence and opened again, up to 3 times.
    /// A server that really says nothing still fails the test. With `tls`, over WSS to `localhost`.
    init(
        port: Int, path: String, token: String?, tokenInFirstMessage: Bool = false, stopAfter: Int = .max,
        initialMessages: [String] = [], tls: TLSConfiguration? = nil
    ) {
        let storage = self.storage
        let (outgoing, sink) = AsyncStream.makeStream(of: String.self)
        self.outgoing = sink
        var first = initialMessages
        if let token, tokenInFirstMessage { first.insert(#"{"type":"auth","token":"\#(token)"}"#, at: 0) }
        let opening = first
        task = Task {
            for attempt in 1...Self.attempts {
                let heard = Flag()
                let ended = Flag()
                let connection = Task {
                    defer { ended.raise() }
                    try await Self.connect(
                        port: port, path: path, token: tokenInFirstMessage ? nil : token, opening: opening,
                        outgoing: outgoing, stopAfter: stopAfter, storage: storage, heard: heard, tls: tls)
                }
                let deadline = ContinuousClock.now + Self.silenceLimit
                while !heard.isRaised && !ended.isRaised && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                if heard.isRaised || ended.isRaised || attempt == Self.attempts {
                    try await connection.value
                    return
                }
                connection.cancel()  // abandoned: the library may never let it finish
            }
        }
    }

    /// One connection: the opening messages, then whatever the test sends once the server has spoken.
    private static func connect(
        port: Int, path: String, token: String?, opening: [String], outgoing: AsyncStream<String>, stopAfter: Int,
        storage: Storage, heard: Flag, tls: TLSConfiguration?
    ) async throws {
        var configuration = WebSocketClientConfiguration()
        if tls != nil { configuration.sniHostname = "localhost" }
        if let token { configuration.additionalHeaders[.secWebSocketProtocol] = "bearer, \(token)" }
        var logger = Logger(label: "test-socket")
        logger.logLevel = .critical
        let close = try await WebSocketClient.connect(
            url: "\(tls == nil ? "ws" : "wss")://127.0.0.1:\(port)\(path)", configuration: configuration,
            tlsConfiguration: tls, logger: logger
        ) { inbound, outbound, _ in
            for text in opening { try await outbound.write(.text(text)) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Only one connection may drain the test's messages: the one the server spoke on.
                    while !heard.isRaised { try await Task.sleep(for: .milliseconds(10)) }
                    for await text in outgoing { try await outbound.write(.text(text)) }
                }
                for try await frame in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = frame else { continue }
                    let count = storage.texts.withLock {
                        $0.append(text)
                        return $0.count
                    }
                    heard.raise()
                    if count >= stopAfter { break }
                }
                group.cancelAll()
            }
        }
        storage.closedNormally.withLock { $0 = close.map { $0.closeCode == .normalClosure } }
        if case .unknown(let code) = close?.closeCode { storage.applicationCloseCode.withLock { $0 = code } }
    }

    final class Flag: Sendable {
        private let raised = Mutex(false)
        var isRaised: Bool { raised.withLock { $0 } }
        func raise() { raised.withLock { $0 = true } }
    }

    deinit { outgoing.finish() }

    func send(_ text: String) { outgoing.yield(text) }

    var messages: [[String: Any]] {
        storage.texts.withLock { $0 }.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    /// Waits up to `seconds` (10 s unless told) until `condition` holds for the messages so far.
    func wait(within seconds: TimeInterval = 10, _ condition: ([[String: Any]]) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(messages) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("socket messages never matched; got \(storage.texts.withLock { $0 })")
    }

    /// Waits up to 20 s for the socket to end (server close or `stopAfter`); a socket that never ends is a
    /// failure with what it received, not a hung test run. The wait is unstructured on purpose: a client stuck
    /// in its close handshake must not hold the test (awaiting a task's value cannot be cancelled).
    func finished(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let task = self.task
        do {
            try await TestServer.answered(within: .seconds(20), "the socket's end") { try await task.value }
        } catch is TestServer.NoAnswer {
            Issue.record(
                "the socket did not end within 20 s; got \(storage.texts.withLock { $0 })",
                sourceLocation: sourceLocation)
            task.cancel()
        }
    }
}
