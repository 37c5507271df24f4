import Foundation
import HummingbirdWSClient
import Logging
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

    /// A customer following an order.
    convenience init(
        port: Int, orderId: String, token: String, resumeFrom: Int? = nil, stopAfter: Int = .max,
        tokenInFirstMessage: Bool = false
    ) {
        self.init(
            port: port, path: "/api/v1/customer/orders/\(orderId)/tracking", token: token,
            tokenInFirstMessage: tokenInFirstMessage, stopAfter: stopAfter)
        if let resumeFrom { send(#"{"resumeFrom": \#(resumeFrom)}"#) }
    }

    init(port: Int, path: String, token: String?, tokenInFirstMessage: Bool = false, stopAfter: Int = .max) {
        let storage = self.storage
        let (outgoing, sink) = AsyncStream.makeStream(of: String.self)
        self.outgoing = sink
        if let token, tokenInFirstMessage { sink.yield(#"{"type":"auth","token":"\#(token)"}"#) }
        task = Task {
            var configuration = WebSocketClientConfiguration()
            if let token, !tokenInFirstMessage {
                configuration.additionalHeaders[.secWebSocketProtocol] = "bearer, \(token)"
            }
            var logger = Logger(label: "test-socket")
            logger.logLevel = .critical
            let close = try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)\(path)", configuration: configuration, logger: logger
            ) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in outgoing { try await outbound.write(.text(text)) }
                    }
                    for try await frame in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = frame else { continue }
                        let count = storage.texts.withLock {
                            $0.append(text)
                            return $0.count
                        }
                        if count >= stopAfter { break }
                    }
                    group.cancelAll()
                }
            }
            storage.closedNormally.withLock { $0 = close.map { $0.closeCode == .normalClosure } }
            if case .unknown(let code) = close?.closeCode { storage.applicationCloseCode.withLock { $0 = code } }
        }
    }

    deinit { outgoing.finish() }

    func send(_ text: String) { outgoing.yield(text) }

    var messages: [[String: Any]] {
        storage.texts.withLock { $0 }.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    /// Waits up to 10 s until `condition` holds for the messages so far.
    func wait(_ condition: ([[String: Any]]) -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if condition(messages) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("socket messages never matched; got \(storage.texts.withLock { $0 })")
    }

    /// Waits up to 20 s for the socket to end (server close or `stopAfter`); a socket that never ends is a
    /// failure with what it received, not a hung test run.
    func finished(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let task = self.task
        let ended = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                _ = try? await task.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return false
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
        if !ended {
            Issue.record(
                "the socket did not end within 20 s; got \(storage.texts.withLock { $0 })",
                sourceLocation: sourceLocation)
            task.cancel()
        }
    }
}
