import Foundation
import Hummingbird
import LogisticsCore
import NIOCore
import NIOWebSocket

/// A WebSocket served by callbacks on its connection's event loop, with no task of its own: the handshake's
/// remainder, pings, the close handshake, the flood limit, the backlog of a client that reads slowly, and the close
/// for a server going down. It keeps the promises the task-served sockets kept before it: 4429 for a flood or a
/// client too far behind, 4000 + status for a refusal with its problem document, 1001 on shutdown, and a client that
/// cannot take its close frame is cut.
final class LoopSocket: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// Idle peers are pinged this often, and dropped when the previous ping got no pong.
    static let pingInterval: TimeAmount = .seconds(20)
    /// How long a client has to answer our close frame before the connection is cut.
    static let closeTimeout: TimeAmount = .seconds(5)

    private enum State { case open, closing, closed }

    private let opening: LoopSocketOpening
    private var context: ChannelHandlerContext?
    private var stream: (any LoopSocketStream)?
    private var state = State.open
    /// Frames waiting for the connection to take writes again; past the backlog's limits the socket is closed.
    private var queued = CircularBuffer<WebSocketFrame>(initialCapacity: 0)
    private var queuedBytes = 0
    private var allowance: TokenBucket
    private var awaitingPong = false
    private var pinger: Scheduled<Void>?
    private var timers: [Scheduled<Void>] = []
    private var endings: [() -> Void] = []
    /// Whose allowance the client's messages draw on, once the stream knows who it serves.
    private var caller: (limits: CallerLimits, caller: CallerLimits.Caller)?

    private init(_ opening: LoopSocketOpening) {
        self.opening = opening
        allowance = TokenBucket(
            ratePerSecond: SocketPolicy.incomingPerSecond, burst: SocketPolicy.incomingBurst, now: Date())
    }

    /// Puts the socket on a freshly upgraded connection (the frame codec is already there).
    static func install(on channel: any Channel, _ opening: LoopSocketOpening, maximumMessage: Int) throws {
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(
            NIOWebSocketFrameAggregator(
                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 64, maxAccumulatedFrameSize: maximumMessage))
        try pipeline.addHandler(LoopSocket(opening))
    }

    // MARK: For the stream

    var eventLoop: any EventLoop { context!.eventLoop }

    /// A way back to this socket's stream (or to the socket itself) from any thread.
    func handle<Value: AnyObject>(_ value: Value) -> LoopHandle<Value> {
        LoopHandle(bound: NIOLoopBound(value, eventLoop: eventLoop), eventLoop: eventLoop)
    }

    func send(text: String) {
        guard state == .open, let context else { return }
        send(WebSocketFrame(fin: true, opcode: .text, data: context.channel.allocator.buffer(string: text)))
    }

    /// A text message already in a buffer, which may be shared with other sockets: nothing is copied.
    func send(text utf8: ByteBuffer) {
        guard state == .open else { return }
        send(WebSocketFrame(fin: true, opcode: .text, data: utf8))
    }

    /// An `error` message for a request the socket survives.
    func sendProblem(_ error: any Error) {
        send(text: SocketPolicy.problemMessage(for: error, path: opening.path))
    }

    /// The refusal that ends the socket: the problem, then a close with 4000 + its HTTP status.
    func refuse(_ error: any Error) {
        let problem = ProblemDocument.problem(for: error)
        sendProblem(error)
        close(code: .unknown(UInt16(4000 + problem.code.httpStatus)), reason: problem.code.rawValue)
    }

    /// Closes politely: the close frame after whatever is queued; the client answers with its own and the connection
    /// ends, or it is cut after `closeTimeout`. The output is not shut right after the close frame: a client that
    /// reads the 101, the frame and the end of the stream in one go can miss the end (HummingbirdWSClient then
    /// hangs), and the close frame already says that nothing follows.
    func close(code: WebSocketErrorCode, reason: String, dropQueued: Bool = false, cutAfter: TimeAmount = closeTimeout)
    {
        guard state == .open, let context else { return }
        state = .closing
        if dropQueued {
            queued.removeAll()
            queuedBytes = 0
        }
        var payload = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        payload.write(webSocketErrorCode: code)
        payload.writeString(reason)
        send(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload))
        after(cutAfter) { $0.cut() }
    }

    /// The client fell behind or sent too fast: 4429, and the connection cut if even that cannot get through.
    func overloaded(_ reason: String, cutOff: String) {
        guard state == .open else { return }
        opening.metrics.socketCutOff(opening.name, reason: cutOff)
        close(
            code: .unknown(4429), reason: "RATE_LIMITED: \(reason)", dropQueued: true,
            cutAfter: TimeAmount(SocketPolicy.closeGrace))
    }

    /// Runs `work` on the event loop after `delay`, unless the socket has ended by then.
    func after(_ delay: TimeAmount, _ work: @escaping (LoopSocket) -> Void) {
        guard let context else { return }
        let timer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
            if state != .closed { work(self) }
        }
        timers.append(timer)
    }

    /// Runs `work` when the socket ends.
    func onEnd(_ work: @escaping () -> Void) {
        endings.append(work)
    }

    var isOpen: Bool { state == .open }

    /// Seats the socket for its caller and charges every message it sends from now on to the caller's allowance;
    /// false, after refusing the socket (4429), when the caller already holds as many sockets as allowed.
    func admit(_ caller: CallerLimits.Caller, limits: CallerLimits) -> Bool {
        guard state == .open else { return false }
        do { try limits.seat(caller) } catch {
            refuse(error)
            return false
        }
        onEnd { limits.unseat(caller) }
        self.caller = (limits, caller)
        return true
    }

    /// Stops (or resumes) reading from the client: TCP then holds a sender that outruns the server, instead of
    /// the server holding its messages.
    func holdReads(_ hold: Bool) {
        guard let context else { return }
        if hold { opening.metrics.socketReadsHeld(opening.name) }
        try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: !hold)
        if !hold { context.read() }
    }

    /// Closes the socket (4401) when its token stops being accepted; `now` is the server clock's time.
    func closeWhenTokenExpires(_ validUntil: Date, now: Date) {
        let left = validUntil.timeIntervalSince(now)
        // A token may say it lasts for ever (an `exp` 300 million years ahead overflowed the timer's milliseconds and
        // trapped): wait at most a day at a time, and look again.
        let wait = min(max(0, left), Self.longestWait)
        after(.milliseconds(Int64(wait * 1000))) { socket in
            guard left <= Self.longestWait else {
                socket.closeWhenTokenExpires(validUntil, now: now.addingTimeInterval(wait))
                return
            }
            socket.refuse(
                LogisticsError(.unauthenticated, "The token has expired; sign in again and reconnect with resumeFrom"))
        }
    }

    /// The longest a socket's timer waits in one go.
    static let longestWait: TimeInterval = 24 * 3600

    /// Closes the socket when its holder loses access (4403: a rider suspended, a tracking link revoked; 4401: a
    /// sign-in session ended), watched until the socket ends.
    func closeWhenAccessLost(_ holder: RevocationWatch.Holder, watch: RevocationWatch) {
        let socket = handle(self)
        let ticket = watch.watch(holder) { error in socket.execute { $0.refuse(error) } }
        onEnd { watch.unwatch(ticket) }
    }

    /// Closes the socket (4401) when the sign-in session its token came from ends (logout, revocation, a refresh
    /// token used twice, a suspension), on whichever instance that happened.
    func closeWhenSignInEnds(_ actor: Actor, watch: RevocationWatch) {
        guard let session = actor.sessionId else { return }
        closeWhenAccessLost(.session(session), watch: watch)
    }

    // MARK: The pipeline

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        opening.metrics.socketOpened(opening.name)
        if let options = context.channel.syncOptions {
            try? options.setOption(
                ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(SocketPolicy.sendBuffer))
            try? options.setOption(ChannelOptions.writeBufferWaterMark, value: SocketPolicy.pendingWrites)
        }
        schedulePing()
        let stream = opening.makeStream()
        self.stream = stream
        stream.opened(self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            guard state == .open else { return }
            guard allowance.take(now: Date()) else {
                overloaded("too many messages", cutOff: "flood")
                return
            }
            if let (limits, caller) = caller {
                do { try limits.charge(caller, bytes: frame.data.readableBytes) } catch {
                    stream?.refused(text: String(buffer: frame.unmaskedData), error, on: self)
                    return
                }
            }
            stream?.received(text: String(buffer: frame.unmaskedData))
        case .ping:
            guard frame.fin else { return protocolError() }
            guard state == .open else { return }
            // Pings count against the flood limit like messages, and a pong waits for nothing: while the client is
            // not taking what it was sent, its pings go unanswered instead of piling up in the server's writes.
            guard allowance.take(now: Date()) else {
                overloaded("too many messages", cutOff: "flood")
                return
            }
            if queued.isEmpty, context.channel.isWritable {
                write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData), context)
            }
        case .pong:
            guard state == .open else { return }
            guard allowance.take(now: Date()) else {
                overloaded("too many messages", cutOff: "flood")
                return
            }
            awaitingPong = false
        case .connectionClose:
            answerClose(frame)
        default:
            break
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        drain()
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed = event as? ChannelEvent {
            // The client will send nothing more, not even a pong or its close: the socket is over. (The server
            // allows half-closed connections for HTTP; a socket left so waited for its ping timeout.)
            context.close(promise: nil)
            return
        }
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // The server is stopping: 1001 so the client reconnects elsewhere; one that reads nothing is cut.
        close(
            code: .goingAway, reason: "server restarting; reconnect", dropQueued: true,
            cutAfter: TimeAmount(SocketPolicy.closeGrace))
    }

    func channelInactive(context: ChannelHandlerContext) {
        end()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        end()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard state == .open, let error = error as? NIOWebSocketFrameAggregator.Error else {
            context.close(promise: nil)
            return
        }
        // A message over the limit, or fragments that do not add up: said with a close frame, as the protocol asks.
        let code: WebSocketErrorCode =
            error == .accumulatedFrameSizeIsTooLarge || error == .tooManyFragments ? .messageTooLarge : .protocolError
        close(code: code, reason: "", dropQueued: true)
    }

    // MARK: Inside

    private func send(_ frame: WebSocketFrame) {
        guard let context else { return }
        if queued.isEmpty, context.channel.isWritable {
            write(frame, context)
            return
        }
        queued.append(frame)
        queuedBytes += frame.data.readableBytes
        if state == .open, queued.count > SocketPolicy.backlogMessages || queuedBytes > SocketPolicy.backlogBytes {
            overloaded("the client fell behind", cutOff: "behind")
        }
    }

    private func drain() {
        guard let context else { return }
        while context.channel.isWritable, let frame = queued.popFirst() {
            queuedBytes -= frame.data.readableBytes
            write(frame, context)
        }
    }

    private func write(_ frame: WebSocketFrame, _ context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    /// The client's close: answered with its own code when we had not closed yet, then the connection ends (cut
    /// after `closeTimeout` if the client does not read the answer).
    private func answerClose(_ frame: WebSocketFrame) {
        guard let context else { return }
        guard state == .open else {
            context.close(promise: nil)
            return
        }
        var data = frame.unmaskedData
        let code = data.readableBytes >= 2 ? data.readWebSocketErrorCode() ?? .normalClosure : .normalClosure
        closeAndEnd(code, context)
    }

    /// Ends the connection at once, with a reset: what the kernel still holds for a client that is not reading is
    /// dropped with it. A plain close leaves the close frame and the end of the stream queued behind that data, so
    /// a silent client never learned that it had been cut, and the kernel kept its buffers for minutes.
    private func cut() {
        guard let context else { return }
        if let socket = context.channel as? any SocketOptionProvider {
            _ = socket.setSoLinger(linger(l_onoff: 1, l_linger: 0))
        }
        context.close(promise: nil)
    }

    private func protocolError() {
        guard state == .open, let context else { return }
        closeAndEnd(.protocolError, context)
    }

    private func closeAndEnd(_ code: WebSocketErrorCode, _ context: ChannelHandlerContext) {
        state = .closing
        var payload = context.channel.allocator.buffer(capacity: 2)
        payload.write(webSocketErrorCode: code)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)))
            .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        after(Self.closeTimeout) { $0.cut() }
    }

    private func schedulePing() {
        pinger = context?.eventLoop.assumeIsolated().scheduleTask(in: opening.pingInterval) { [self] in ping() }
    }

    private func ping() {
        guard state == .open, let context else { return }
        guard !awaitingPong else {
            opening.metrics.socketCutOff(opening.name, reason: "ping")
            close(code: .goingAway, reason: "Ping timeout", dropQueued: true)
            cut()
            return
        }
        awaitingPong = true
        let frame = WebSocketFrame(fin: true, opcode: .ping, data: context.channel.allocator.buffer(string: "ping"))
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        schedulePing()
    }

    private func end() {
        guard state != .closed else { return }
        state = .closed
        pinger?.cancel()
        for timer in timers { timer.cancel() }
        timers = []
        for ending in endings { ending() }
        endings = []
        queued.removeAll()
        stream?.ended()
        stream = nil
        opening.metrics.socketClosed(opening.name)
    }
}
