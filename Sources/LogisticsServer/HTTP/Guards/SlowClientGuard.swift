import Foundation
import NIOCore
import Synchronization

/// How long a client may take, and how many connections one address may hold (per instance).
public struct ConnectionLimits: Sendable, Equatable {
    /// From a request's first byte to the end of its head: a client dribbling headers (slowloris) is cut here.
    public var headerSeconds: Double = 10
    /// Longest silence while a request body arrives (a phone uploading a photo on a poor network still sends).
    public var bodyGapSeconds: Double = 30
    /// Longest silence on a connection between requests (keep-alive), and before the first one.
    public var idleSeconds: Double = 60
    /// Longest wait for the server's first answer byte once a request is in; only a request the server cannot even
    /// parse (it sends nothing back) comes near it.
    public var processingSeconds: Double = 120
    /// Connections open at once from one address; nil: no cap. Trusted proxies are not capped.
    public var perAddress: Int? = 1_000

    public init() {}
}

/// Open connections by address, for the per-address cap.
final class ConnectionRegistry: Sendable {
    private let open = Mutex<[String: Int]>([:])
    let limit: Int?
    let exempt: Set<String>

    init(limit: Int?, exempt: Set<String>) {
        self.limit = limit
        self.exempt = exempt
    }

    /// Counts a new connection; false (and not counted) when the address already holds its limit.
    func admit(_ address: String) -> Bool {
        guard let limit, !exempt.contains(address) else { return true }
        return open.withLock { open in
            guard open[address, default: 0] < limit else { return false }
            open[address, default: 0] += 1
            return true
        }
    }

    func release(_ address: String) {
        guard limit != nil, !exempt.contains(address) else { return }
        open.withLock { open in
            let count = open[address, default: 1] - 1
            open[address] = count > 0 ? count : nil
        }
    }
}

/// The first handler of every connection, on raw bytes before any HTTP parsing (so it also sees the first
/// request, which the WebSocket upgrade pipeline parses before any handler of ours is added): closes a connection
/// whose request head takes longer than `headerSeconds` from its first byte, whose body goes silent for
/// `bodyGapSeconds`, or that sits idle for `idleSeconds`; refuses connections past the per-address cap. After a
/// WebSocket upgrade (a `101` written) it steps aside: sockets have their own ping and limits.
final class SlowClientGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private enum Phase {
        case idle
        case head
        /// This many body bytes are still to come (`Int.max`: chunked, until the answer starts).
        case body(remaining: Int)
        /// The request is in; the server is working on it, however long that takes.
        case processing
    }

    private let limits: ConnectionLimits
    private let registry: ConnectionRegistry
    private var phase = Phase.idle
    /// The head so far (bounded by the HTTP decoder's own limits, which close longer ones).
    private var head: [UInt8] = []
    /// The server answered before the body was all in (a 413, a 401): once it is, the connection is idle.
    private var answeredEarly = false
    private var timer: Scheduled<Void>?
    private var address: String?
    private static let switching: [UInt8] = Array("HTTP/1.1 101".utf8)
    private static let response: [UInt8] = Array("HTTP/1.".utf8)

    init(limits: ConnectionLimits, registry: ConnectionRegistry) {
        self.limits = limits
        self.registry = registry
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard address == nil else { return }
        let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
        guard registry.admit(peer) else {
            context.close(promise: nil)
            return
        }
        address = peer
        arm(context, seconds: limits.idleSeconds)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        if let address { registry.release(address) }
        address = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        switch phase {
        case .idle, .processing:
            phase = .head
            head = []
            answeredEarly = false
            arm(context, seconds: limits.headerSeconds)
            scanHead(context, bytes.readableBytesView[...])
        case .head:
            scanHead(context, bytes.readableBytesView[...])
        case .body(let remaining):
            received(context, bodyBytes: bytes.readableBytes, of: remaining)
        }
        context.fireChannelRead(data)
    }

    private func scanHead(_ context: ChannelHandlerContext, _ bytes: ByteBufferView.SubSequence) {
        let searchFrom = max(0, head.count - 3)
        head += bytes
        guard let end = Self.endOfHead(in: head, from: searchFrom) else { return }
        let bodyLength = Self.bodyLength(head[..<end])
        let alreadyHere = head.count - end
        head = []
        received(context, bodyBytes: alreadyHere, of: bodyLength)
    }

    private func received(_ context: ChannelHandlerContext, bodyBytes: Int, of remaining: Int) {
        let left = remaining == Int.max ? remaining : remaining - bodyBytes
        if left > 0 {
            phase = .body(remaining: left)
            arm(context, seconds: limits.bodyGapSeconds)
        } else if answeredEarly {
            phase = .idle
            arm(context, seconds: limits.idleSeconds)
        } else {
            phase = .processing
            // The server answers within seconds (database calls give up at 5 s); a head it cannot parse gets no
            // answer at all from the HTTP decoder, and would otherwise hold the connection for ever.
            arm(context, seconds: limits.processingSeconds)
        }
    }

    /// Where the body starts (just past the blank line), searching from `start`.
    private static func endOfHead(in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var index = start
        while index + 4 <= bytes.count {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                return index + 4
            }
            index += 1
        }
        return nil
    }

    /// The body's length from `Content-Length`; `Int.max` for a chunked one; 0 without either.
    private static func bodyLength(_ head: ArraySlice<UInt8>) -> Int {
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].lowercased()
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            if name == "content-length", let length = Int(value) { return max(0, length) }
            if name == "transfer-encoding", value.lowercased().contains("chunked") { return Int.max }
        }
        return 0
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .byteBuffer(let buffer) = unwrapOutboundIn(data) {
            let start = buffer.readableBytesView.prefix(Self.switching.count)
            if start.elementsEqual(Self.switching) {
                // A WebSocket from here on: step aside once the 101 is on its way.
                context.write(data, promise: promise)
                timer?.cancel()
                timer = nil
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
            if start.starts(with: Self.response) {
                switch phase {
                case .processing: phase = .idle
                case .body: answeredEarly = true
                case .idle, .head: break
                }
            }
        }
        // Writing is activity too: a long download to a reading client is not idle.
        if case .idle = phase { arm(context, seconds: limits.idleSeconds) }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, seconds: Double) {
        timer?.cancel()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000))) {
            channel.close(promise: nil)
        }
    }
}
