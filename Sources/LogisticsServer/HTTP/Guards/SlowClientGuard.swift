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

    /// Counts a new connection; false (and not counted) when the address (an IPv6 address's /64) already holds
    /// its limit.
    func admit(_ address: String) -> Bool {
        guard let limit, !exempt.contains(address) else { return true }
        let key = ClientAddress.key(address)
        return open.withLock { open in
            guard open[key, default: 0] < limit else { return false }
            open[key, default: 0] += 1
            return true
        }
    }

    func release(_ address: String) {
        guard limit != nil, !exempt.contains(address) else { return }
        let key = ClientAddress.key(address)
        open.withLock { open in
            let count = open[key, default: 1] - 1
            open[key] = count > 0 ? count : nil
        }
    }
}

/// The first handler of every connection, on raw bytes before any HTTP parsing (so it also sees the first
/// request, which the WebSocket upgrade pipeline parses before any handler of ours is added): closes a connection
/// whose request head takes longer than `headerSeconds` from its first byte, whose body goes silent for
/// `bodyGapSeconds`, or that sits idle for `idleSeconds`; refuses connections past the per-address cap. After a
/// WebSocket upgrade (a `101` written) it steps aside: sockets have their own ping and limits. The bytes are read as
/// a stream of requests, so pipelined ones (several in one read, or one's body and the next's head together) are
/// told apart; while the server owes answers, only the processing limit runs, since the server reads no further
/// until it has answered.
final class SlowClientGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// Where the client's byte stream stands.
    private enum Phase: Equatable {
        /// Between requests.
        case between
        case head
        /// This many body bytes are still to come (`Int.max`: chunked, until the answer starts).
        case body(remaining: Int)
    }

    private let limits: ConnectionLimits
    private let registry: ConnectionRegistry
    private var phase = Phase.between
    /// Requests wholly received and not yet answered: while there are any, the server is working.
    private var owed = 0
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
        // Released when the connection closes, not when this handler sees it close: after a WebSocket upgrade the
        // guard steps aside, and every socket ever upgraded from an address used to keep its place in the count.
        context.channel.closeFuture.whenComplete { [registry] _ in registry.release(peer) }
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
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let before = (phase: phase, owed: owed)
        var bytes = unwrapInboundIn(data).readableBytesView[...]
        while !bytes.isEmpty {
            switch phase {
            case .between:
                phase = .head
                head = []
                answeredEarly = false
            case .head:
                let searchFrom = max(0, head.count - 3)
                let taken = head.count
                head += bytes
                guard let end = Self.endOfHead(in: head, from: searchFrom) else {
                    bytes = bytes[bytes.endIndex...]
                    break
                }
                let bodyLength = Self.bodyLength(head[..<end])
                bytes = bytes.dropFirst(end - taken)
                head = []
                phase = .body(remaining: bodyLength)
                if bodyLength == 0 { requestIn() }
            case .body(let remaining) where remaining == Int.max:
                bytes = bytes[bytes.endIndex...]
            case .body(let remaining):
                let taken = min(remaining, bytes.count)
                bytes = bytes.dropFirst(taken)
                phase = .body(remaining: remaining - taken)
                if taken == remaining { requestIn() }
            }
        }
        // Pipelined bytes read while the server owes answers do not renew its processing limit.
        if before.owed == 0 { rearm(context, newHead: before.phase != .head && phase == .head) }
        context.fireChannelRead(data)
    }

    /// A request is wholly in; unless the server already answered it (a 413, a 401), it owes an answer.
    private func requestIn() {
        phase = .between
        if answeredEarly {
            answeredEarly = false
        } else {
            owed += 1
        }
    }

    /// The limit that applies now. A head's deadline runs from its first byte, so more bytes of it do not renew it.
    private func rearm(_ context: ChannelHandlerContext, newHead: Bool) {
        if owed > 0 {
            // The server answers within seconds (database calls give up at 5 s); a head it cannot parse gets no
            // answer at all from the HTTP decoder, and would otherwise hold the connection for ever.
            arm(context, seconds: limits.processingSeconds)
            return
        }
        switch phase {
        case .between: arm(context, seconds: limits.idleSeconds)
        case .head: if newHead { arm(context, seconds: limits.headerSeconds) }
        case .body: arm(context, seconds: limits.bodyGapSeconds)
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

    /// The body's length from `Content-Length`; `Int.max` for a chunked one; 0 without either. Read from the bytes
    /// in place: every request passes here, and a `String` per header line cost more than the handler it guards.
    static func bodyLength(_ head: ArraySlice<UInt8>) -> Int {
        var lineStart = head.startIndex
        var isRequestLine = true
        while lineStart < head.endIndex {
            var lineEnd = lineStart
            while lineEnd < head.endIndex, head[lineEnd] != UInt8(ascii: "\r"), head[lineEnd] != UInt8(ascii: "\n") {
                lineEnd += 1
            }
            defer {
                lineStart = lineEnd
                while lineStart < head.endIndex,
                    head[lineStart] == UInt8(ascii: "\r") || head[lineStart] == UInt8(ascii: "\n")
                {
                    lineStart += 1
                }
            }
            if isRequestLine {
                isRequestLine = false
                continue
            }
            let line = head[lineStart..<lineEnd]
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = line[..<colon]
            let value = Self.trimmed(line[(colon + 1)...])
            if Self.equalsIgnoringCase(name, "content-length") {
                guard !value.isEmpty, value.count <= 18, value.allSatisfy({ (48...57).contains($0) }) else { continue }
                return value.reduce(0) { $0 * 10 + Int($1 - 48) }
            }
            if Self.equalsIgnoringCase(name, "transfer-encoding"), Self.contains(value, "chunked") { return Int.max }
        }
        return 0
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (65...90).contains(byte) ? byte + 32 : byte
    }

    private static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ word: StaticString) -> Bool {
        let word = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        return bytes.count == word.count && zip(bytes, word).allSatisfy { lowercased($0) == $1 }
    }

    private static func contains(_ bytes: ArraySlice<UInt8>, _ word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        return bytes.indices.contains { start in
            start + length <= bytes.endIndex && equalsIgnoringCase(bytes[start..<(start + length)], word)
        }
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
            // A final answer's head ("HTTP/1.1 200"); an interim one ("HTTP/1.1 100") answers nothing yet.
            if start.starts(with: Self.response), buffer.readableBytesView.dropFirst(9).first != UInt8(ascii: "1") {
                if owed > 0 {
                    owed -= 1
                    // The server is free again: what the client sent meanwhile is read now, under its own limit.
                    if owed == 0 { rearm(context, newHead: phase == .head) }
                } else if phase == .body(remaining: Int.max) {
                    // A chunked body's end is not counted here; the server answers once it has read it.
                    phase = .between
                } else if phase != .between {
                    answeredEarly = true
                }
            }
        }
        // Writing is activity too: a long download to a reading client is not idle.
        if owed == 0 && phase == .between { arm(context, seconds: limits.idleSeconds) }
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

extension ConnectionLimits {
    static var environment: [EnvironmentSetting<Self>] {
        [
            .whole("LOGISTICS_HEADER_TIMEOUT_SECONDS", \.headerSeconds, in: 1...600),
            .whole("LOGISTICS_BODY_TIMEOUT_SECONDS", \.bodyGapSeconds, in: 1...600),
            .whole("LOGISTICS_IDLE_TIMEOUT_SECONDS", \.idleSeconds, in: 1...3600),
            .limit("LOGISTICS_CONNECTIONS_PER_ADDRESS", \.perAddress, in: 1...1_000_000),
        ]
    }
}
