import Foundation
import NIOCore
import NIOPosix

/// One rider's phone on `WS /api/v1/rider/stream`: a fix every interval goes up as a `locations` message and gets
/// its `ack` once the fix is stored (like the 202 of `POST /rider/locations`); up to `Plan.inFlight` messages may
/// wait for theirs, as the server shows a batch to customers without waiting for the commit of the one before. A
/// phone that keeps the socket open pays for the connection and sign-in once, not on every fix. Lives on its
/// socket's event loop and ticks on its timers: no task of its own, so thousands of riders cost the generator
/// little of the CPU the servers it measures need.
final class RiderSocket: BenchSocketListener {
    /// The rider from any thread; the work runs on its event loop.
    struct Handle: Sendable {
        fileprivate let rider: NIOLoopBound<RiderSocket>
        let eventLoop: any EventLoop
        /// Completes when the connection is gone.
        let closed: EventLoopFuture<Void>

        /// Sends fixes as `plan` says; `finished` gets the tally once the last one is answered.
        func start(_ plan: Plan, finished: EventLoopPromise<Tally>) {
            eventLoop.execute { rider.value.start(plan, finished: finished) }
        }

        func close() {
            eventLoop.execute { rider.value.socket?.close() }
        }
    }

    struct Plan: Sendable {
        /// Which rider: its fixes' latitudes differ from the others'.
        var index: Int
        var first: NIODeadline
        var interval: TimeAmount
        /// No fix is sent at or after this.
        var end: NIODeadline
        /// Only the last acknowledged latitude of a rider with an order is checked against its customers.
        var hasOrder: Bool
        var path: RiderPath
        /// Counts acknowledged fixes across riders, for the progress lines.
        var acknowledged: AcknowledgedCount
        /// Messages sent and not yet answered, at most; 1 is a phone that waits for each ack before sending.
        var inFlight = 1
    }

    struct Tally: Sendable {
        var acknowledged = 0
        var failed = 0
        var ackSeconds: [Double] = []
        var lastAcknowledgedLat: Double?
    }

    private let eventLoop: any EventLoop
    private var ready: EventLoopPromise<Handle>?
    private var socket: BenchSocket?
    private var plan: Plan?
    private var finished: EventLoopPromise<Tally>?
    private var tally = Tally()
    private var tick: NIODeadline = .distantPast
    /// A timer for the next tick is set: another would send twice.
    private var isWaitingForTick = false
    private var step = 0
    private var nextReference = 0
    /// Sent and not yet answered, oldest first; the server answers in order.
    private var pending = CircularBuffer<(reference: Int, lat: Double, sentAt: NIODeadline)>(initialCapacity: 1)

    private init(eventLoop: any EventLoop, ready: EventLoopPromise<Handle>) {
        self.eventLoop = eventLoop
        self.ready = ready
    }

    /// Connects and waits for the server's `ready`; fails when the socket was refused or dropped first.
    static func open(port: Int, token: String) -> EventLoopFuture<Handle> {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let ready = eventLoop.makePromise(of: Handle.self)
        BenchSocket.connect(on: eventLoop, port: port, path: "/api/v1/rider/stream", token: token) {
            RiderSocket(eventLoop: eventLoop, ready: ready)
        }
        return ready.futureResult
    }

    func opened(_ socket: BenchSocket) {
        self.socket = socket
    }

    func received(_ message: ByteBuffer) {
        message.withUnsafeReadableBytes { bytes in
            let json = FlatJSON(bytes)
            if json.has("type", equalTo: "ready") {
                signedIn()
            } else if json.has("type", equalTo: "ack") {
                answered(json.int("ref"), acknowledged: true)
            } else if json.has("type", equalTo: "error") {
                answered(json.int("ref"), acknowledged: false)
            }
        }
    }

    func closed() {
        socket = nil
        ready?.fail(ChannelError.alreadyClosed)
        ready = nil
        if !pending.isEmpty {
            tally.failed += pending.count
            pending.removeAll()
            sendWhenDue()
        }
    }

    private func signedIn() {
        guard let socket, let ready else { return }
        self.ready = nil
        ready.succeed(
            Handle(
                rider: NIOLoopBound(self, eventLoop: eventLoop), eventLoop: eventLoop,
                closed: socket.channel.closeFuture))
    }

    private func start(_ plan: Plan, finished: EventLoopPromise<Tally>) {
        self.plan = plan
        self.finished = finished
        tick = plan.first
        sendWhenDue()
    }

    /// The next fix at its tick, or at once when its tick passed while `inFlight` fixes waited for their answers
    /// (as a phone that holds its fixes while the server is behind does): a slow server lowers the rate offered, and
    /// every rider still sends every fix its ticks before `end` call for.
    private func sendWhenDue() {
        guard let plan, finished != nil else { return }
        guard tick < plan.end else {
            if pending.isEmpty {
                finished?.succeed(tally)
                finished = nil
            }
            return
        }
        guard pending.count < plan.inFlight, !isWaitingForTick else { return }
        // A rider that fell behind sends at once: a timer each would cost the generator's loops a trip through
        // their timer heaps of thousands of riders, a cost that showed in the riders' process under perf.
        guard tick > .now() else { return send() }
        isWaitingForTick = true
        eventLoop.assumeIsolated().scheduleTask(deadline: tick) { [self] in
            isWaitingForTick = false
            send()
        }
    }

    private func send() {
        guard let plan else { return }
        tick = tick + plan.interval
        let lat = plan.path.latitude(rider: plan.index, step: step, last: tick >= plan.end)
        step += 1
        let reference = nextReference
        nextReference += 1
        let sentAt = NIODeadline.now()
        let message = #"{"type":"locations","ref":"\#(reference)","fixes":[\#(plan.path.fixJSON(lat: lat))]}"#
        guard let socket, socket.send(text: message) else {
            tally.failed += 1
            sendWhenDue()
            return
        }
        pending.append((reference, lat, sentAt))
        sendWhenDue()
    }

    private func answered(_ reference: Int?, acknowledged: Bool) {
        guard let plan, let pending = self.pending.first, pending.reference == reference else { return }
        self.pending.removeFirst()
        if acknowledged {
            tally.acknowledged += 1
            tally.ackSeconds.append(Double((NIODeadline.now() - pending.sentAt).nanoseconds) / 1e9)
            if plan.hasOrder { tally.lastAcknowledgedLat = pending.lat }
            plan.acknowledged.add()
        } else {
            tally.failed += 1
        }
        sendWhenDue()
    }
}
