import HummingbirdWSClient
import Logging
import Synchronization

/// One rider's phone on `WS /api/v1/rider/stream`: fixes go up as `locations` messages and each waits for its `ack`
/// (sent once the fixes are stored, like the 202 of `POST /rider/locations`). A phone that keeps the socket open
/// pays for the connection and sign-in once, not on every fix.
final class RiderSocket: Sendable {
    private struct State {
        var outbound: WebSocketOutboundWriter?
        var opened: CheckedContinuation<Bool, Never>?
        var isClosed = false
        var pending: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextReference = 0
    }

    private let state = Mutex(State())
    private let session = Mutex<Task<Void, Never>?>(nil)

    /// Connects and waits for the server's `ready`; nil when the socket was refused or dropped first.
    static func open(port: Int, token: String) async -> RiderSocket? {
        let socket = RiderSocket()
        let ready = await withCheckedContinuation { (opened: CheckedContinuation<Bool, Never>) in
            socket.state.withLock { $0.opened = opened }
            socket.session.withLock { $0 = Task { await socket.run(port: port, token: token) } }
        }
        return ready ? socket : nil
    }

    /// Sends one message built around its reference; true once the server acknowledged it.
    func send(_ message: (String) -> String) async -> Bool {
        let (reference, outbound) = state.withLock { state -> (Int, WebSocketOutboundWriter?) in
            defer { state.nextReference += 1 }
            return (state.nextReference, state.isClosed ? nil : state.outbound)
        }
        guard let outbound else { return false }
        let text = message(String(reference))
        return await withCheckedContinuation { (acknowledged: CheckedContinuation<Bool, Never>) in
            state.withLock { $0.pending[reference] = acknowledged }
            Task {
                do {
                    try await outbound.write(.text(text))
                } catch {
                    settle(reference, acknowledged: false)
                }
            }
        }
    }

    func close() async {
        let outbound = state.withLock { $0.outbound }
        try? await outbound?.close(.normalClosure, reason: nil)
        await session.withLock { $0 }?.value
    }

    private func run(port: Int, token: String) async {
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders[.secWebSocketProtocol] = "bearer, \(token)"
        var logger = Logger(label: "bench-rider")
        logger.logLevel = .critical
        _ = try? await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/api/v1/rider/stream", configuration: configuration, logger: logger
        ) { inbound, outbound, _ in
            self.state.withLock { $0.outbound = outbound }
            for try await frame in inbound.messages(maxSize: 1 << 16) {
                guard case .text(let text) = frame else { continue }
                let type = TrackingLoad.field("type", in: text)
                switch type {
                case "ready":
                    self.opened(true)
                case "ack", "error":
                    if let reference = TrackingLoad.field("ref", in: text).flatMap({ Int($0) }) {
                        self.settle(reference, acknowledged: type == "ack")
                    }
                default:
                    continue
                }
            }
        }
        opened(false)
        let waiting = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.isClosed = true
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        for continuation in waiting { continuation.resume(returning: false) }
    }

    private func opened(_ isOpen: Bool) {
        let opened = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            defer { state.opened = nil }
            return state.opened
        }
        opened?.resume(returning: isOpen)
    }

    private func settle(_ reference: Int, acknowledged: Bool) {
        state.withLock { $0.pending.removeValue(forKey: reference) }?.resume(returning: acknowledged)
    }
}
