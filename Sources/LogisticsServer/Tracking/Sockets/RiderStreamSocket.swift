import Foundation
import Hummingbird
import LogisticsCore
import NIOCore
import Synchronization

/// `WS /api/v1/rider/stream`: the rider's phone sends `{"type":"locations","ref":"…","fixes":[…]}` and gets an
/// `ack` (the same receipt as `POST /rider/locations`, sent once the fixes are stored) or an `error` with the
/// problem document, both carrying the `ref`; the server pushes `notification` messages (offers, cancellations,
/// dispatcher decisions) addressed to the rider. A bad message is answered, not fatal.
///
/// A city's riders keep this socket open all shift, so it is served on its connection's event loop (`LoopSocket`):
/// each batch is taken in by a task that ends once the batch is handed to the group commit, which calls back when
/// it is stored. A phone may send while earlier batches wait for their commit: a batch is taken in (validated, shown
/// to customers) as it comes, and stored once the one before it is answered, so acks come in the order the batches
/// were sent and customers do not wait for the database.
final class RiderStreamSocket: TokenSocketStream {
    static let path = "/api/v1/rider/stream"
    static let name = "rider"

    private enum Phase { case awaitingToken, signingIn, ready, done }

    struct Collaborators: Sendable {
        let access: StreamAccess
        let ingest: LocationIngest
    }

    private let access: StreamAccess
    /// Made once: copying the collaborators into every message's task retained and released each of them.
    private let answers: RiderStreamAnswers
    private let token: String?
    private var socket: LoopSocket?
    private var phase = Phase.awaitingToken
    private var rider: Actor?
    /// Messages not yet started, oldest first. While the database stalls they pile up here; past `waitingLimit`
    /// messages or `waitingBytesLimit` the socket stops reading, and TCP holds the phone back instead.
    private var waiting = CircularBuffer<String>(initialCapacity: 0)
    private var waitingBytes = 0
    private var readsHeld = false
    /// Messages started and not yet answered, and the newest one's turns, which the next one waits for.
    private var unanswered = 0
    private var lastTurns: (take: Turn, store: Turn)?

    /// How many of a rider's messages are worked on at once: a phone that outruns the database is held back here,
    /// its later messages unread, not shown fixes the server may never store.
    static let atOnce = 8
    static let waitingLimit = 16
    static let waitingBytesLimit = 1024 * 1024

    init(_ collaborators: Collaborators, token: String?) {
        access = collaborators.access
        answers = RiderStreamAnswers(ingest: collaborators.ingest, clock: collaborators.access.clock, path: Self.path)
        self.token = token
    }

    func opened(_ socket: LoopSocket) {
        self.socket = socket
        LoopSocketToken.await(token, on: socket, isWaiting: { self.phase == .awaitingToken }, start: signIn)
    }

    func received(text: String) {
        switch phase {
        case .awaitingToken:
            if let token = LoopSocketToken.from(firstMessage: text, socket) { signIn(token) }
        case .signingIn, .ready:
            waiting.append(text)
            waitingBytes += text.utf8.count
            if !readsHeld, waiting.count >= Self.waitingLimit || waitingBytes >= Self.waitingBytesLimit {
                readsHeld = true
                socket?.holdReads(true)
            }
            answerNext()
        case .done:
            break
        }
    }

    /// A batch over the rider's allowance is answered with its `ref`, like any refused batch.
    func refused(text: String, _ error: any Error, on socket: LoopSocket) {
        socket.send(
            text: SocketPolicy.problemMessage(for: error, path: Self.path, reference: FixBatchReader.read(text)?.ref))
    }

    func ended() {
        phase = .done
        socket = nil
        waiting.removeAll()
        waitingBytes = 0
    }

    private func signIn(_ token: String) {
        guard let socket else { return }
        phase = .signingIn
        LoopSocketToken.signIn(
            token, admission: access.admission, on: socket, for: self,
            admit: { guard $0.role == .rider else { throw LogisticsError(.forbidden, "This stream is for riders") } }
        ) { $0.signedIn($1, validUntil: $2) }
    }

    private func signedIn(_ rider: Actor, validUntil: Date) {
        guard phase == .signingIn, let socket, socket.admit(.signedIn(rider.id), limits: access.callers) else {
            return
        }
        self.rider = rider
        socket.closeWhenTokenExpires(validUntil, now: access.clock.now())
        socket.closeWhenAccessLost(.rider(rider.id), watch: access.revocationWatch)
        socket.closeWhenSignInEnds(rider, watch: access.revocationWatch)
        let (hub, handle) = (access.hub, socket.handle(self))
        let reader = hub.receive(for: rider.id) { message in handle.execute { $0.socket?.send(text: message) } }
        socket.onEnd { hub.stopReceiving(for: rider.id, reader: reader) }
        socket.send(text: #"{"type":"ready"}"#)
        phase = .ready
        answerNext()
    }

    /// Starts the waiting messages, a task each: every one is taken in (shown to customers) once the one before it
    /// is, and stored once the one before it is answered, so fixes are shown and stored in the order they were sent
    /// and acks come in that order. Taking a batch in stays off the loop, which meanwhile reads and writes the other
    /// sockets (taken in on the loop, the customers' messages waited behind the loop's reads and their latency about
    /// doubled); the task ends once the batch is handed to the group commit.
    private func answerNext() {
        guard phase == .ready, let rider, let socket else { return }
        while unanswered < Self.atOnce, let text = waiting.popFirst() {
            waitingBytes -= text.utf8.count
            let previous = unanswered == 0 ? nil : lastTurns
            let turns = (take: Turn(), store: Turn())
            lastTurns = turns
            unanswered += 1
            let (answers, handle) = (answers, socket.handle(self))
            Task {
                await previous?.take.wait()
                let step = answers.take(text, from: rider)
                turns.take.finish()
                await previous?.store.wait()
                answers.answer(step) { answer in
                    handle.executeAfterReads { stream in
                        stream.unanswered -= 1
                        stream.socket?.send(text: answer)
                        stream.answerNext()
                    }
                    // After the answer is queued on the loop, so the next message's answer goes after it.
                    turns.store.finish()
                }
            }
        }
        if readsHeld, waiting.count <= Self.waitingLimit / 2, waitingBytes <= Self.waitingBytesLimit / 2 {
            readsHeld = false
            socket.holdReads(false)
        }
    }
}

/// One message's turn at a step, which the next message of the same rider waits for.
private final class Turn: Sendable {
    private let state = Mutex<(done: Bool, waiting: CheckedContinuation<Void, Never>?)>((false, nil))

    func finish() {
        let waiting = state.withLock { state in
            state.done = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }

    func wait() async {
        guard !state.withLock({ $0.done }) else { return }
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if !state.done { state.waiting = continuation }
                return state.done
            }
            if done { continuation.resume() }
        }
    }
}

/// What the rider's socket answers to one message, worked out off the event loop.
struct RiderStreamAnswers: Sendable {
    let ingest: LocationIngest
    let clock: any WallClock
    let path: String

    private struct Incoming: Decodable {
        var type: String
        var ref: String?
        var fixes: [LocationFix]?
    }

    /// A message read and taken in: its answer, or the batch to store.
    enum Step: Sendable {
        case answered(String)
        case storing(LocationIngest.Taken, ref: String?)
    }

    /// Reads the message and takes its fixes in (customers see them now); an `error` for a message that is not a
    /// valid batch.
    func take(_ text: String, from rider: Actor) -> Step {
        let incoming: Incoming
        if let batch = FixBatchReader.read(text), let type = batch.type {
            incoming = Incoming(type: type, ref: batch.ref, fixes: batch.fixes)
        } else {
            do {
                incoming = try RequestBody.decodeJSON(Incoming.self, from: Data(text.utf8))
            } catch {
                return .answered(SocketPolicy.problemMessage(for: error, path: path))
            }
        }
        guard incoming.type == "locations", let fixes = incoming.fixes else {
            return .answered(
                SocketPolicy.problemMessage(
                    for: LogisticsError.validation(field: "type", #"must be "locations" with a "fixes" array"#),
                    path: path, reference: incoming.ref))
        }
        do {
            return .storing(try ingest.take(fixes, riderId: rider.id, now: clock.now()), ref: incoming.ref)
        } catch {
            return .answered(SocketPolicy.problemMessage(for: error, path: path, reference: incoming.ref))
        }
    }

    /// Calls `done` with an `ack` once the fixes are stored, or an `error` with the problem and the message's
    /// `ref`: at once, or on the group commit's thread.
    func answer(_ step: Step, then done: @escaping @Sendable (String) -> Void) {
        switch step {
        case .answered(let answer):
            done(answer)
        case .storing(let taken, let ref):
            ingest.store(taken) { stored in
                switch stored {
                case .success(let receipt): done(Self.ack(receipt, ref: ref))
                case .failure(let error): done(SocketPolicy.problemMessage(for: error, path: path, reference: ref))
                }
            }
        }
    }

    /// `{"accepted":…,"ref":…,"type":"ack",…}`: the receipt with the message's `ref`, keys sorted as
    /// `APIJSON.encoder` writes them.
    static func ack(_ receipt: LocationIngest.Receipt, ref: String?) -> String {
        var json = JSONOutput(capacity: 96)
        json.object { json in
            json.field("accepted", receipt.accepted)
            json.field("duplicates", receipt.duplicates)
            json.field("ref", ref)
            json.field("rejected", receipt.rejected)
            json.array("rejections", receipt.rejections) { json, rejection in
                json.object { json in
                    json.field("index", rejection.index)
                    json.field("reason", rejection.reason)
                }
            }
            json.field("type", "ack")
        }
        return String(decoding: json.bytes, as: UTF8.self)
    }
}
