import Foundation
import Hummingbird
import LogisticsCore
import NIOCore

/// `WS /api/v1/rider/stream`: the rider's phone sends `{"type":"locations","ref":"…","fixes":[…]}` and gets an
/// `ack` (the same receipt as `POST /rider/locations`, sent once the fixes are stored) or an `error` with the
/// problem document, both carrying the `ref`; the server pushes `notification` messages (offers, cancellations,
/// dispatcher decisions) addressed to the rider. A bad message is answered, not fatal.
///
/// A city's riders keep this socket open all shift, so it is served on its connection's event loop (`LoopSocket`),
/// and so are its batches: the group commit calls back when one is stored. A phone may send while earlier batches
/// wait for their commit: a batch is taken in (validated, shown to customers) as it comes, and stored once the one
/// before it is answered, so acks come in the order the batches were sent and customers do not wait for the
/// database.
final class RiderStreamSocket: TokenSocketStream {
    static let path = "/api/v1/rider/stream"
    static let name = "rider"

    private enum Phase { case awaitingToken, signingIn, ready, done }

    private let services: LogisticsServices
    /// Made once: copying the services into every message's task retained and released each of them.
    private let answers: RiderStreamAnswers
    private let token: String?
    private var socket: LoopSocket?
    private var phase = Phase.awaitingToken
    private var rider: Actor?
    /// Messages not yet taken in, oldest first; the flood limit bounds them.
    private var waiting = CircularBuffer<String>(initialCapacity: 0)
    /// Messages taken in and not yet answered, oldest first; the first one is being stored while `isStoring`.
    private var unanswered = CircularBuffer<RiderStreamAnswers.Step>(initialCapacity: 0)
    private var isStoring = false

    /// How many of a rider's messages are worked on at once: a phone that outruns the database is held back here,
    /// its later messages unread, not shown fixes the server may never store.
    static let atOnce = 8

    init(services: LogisticsServices, token: String?) {
        self.services = services
        answers = RiderStreamAnswers(ingest: services.ingest, clock: services.clock, path: Self.path)
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
            answerNext()
        case .done:
            break
        }
    }

    func ended() {
        phase = .done
        socket = nil
        waiting.removeAll()
    }

    private func signIn(_ token: String) {
        guard let socket else { return }
        phase = .signingIn
        LoopSocketToken.signIn(
            token, services: services, on: socket, for: self,
            admit: { guard $0.role == .rider else { throw LogisticsError(.forbidden, "This stream is for riders") } }
        ) { $0.signedIn($1, validUntil: $2) }
    }

    private func signedIn(_ rider: Actor, validUntil: Date) {
        guard phase == .signingIn, let socket else { return }
        self.rider = rider
        socket.closeWhenTokenExpires(validUntil, now: services.clock.now())
        socket.closeWhenAccessLost(.rider(rider.id), watch: services.accessWatch)
        let (hub, handle) = (services.tracking, socket.handle(self))
        let reader = hub.receive(for: rider.id) { message in handle.execute { $0.socket?.send(text: message) } }
        socket.onEnd { hub.stopReceiving(for: rider.id, reader: reader) }
        socket.send(text: #"{"type":"ready"}"#)
        phase = .ready
        answerNext()
    }

    /// Takes the waiting messages in (customers see their fixes) as they come, on the loop, and stores them one at
    /// a time in the order they were sent, so acks come in that order. Nothing here starts a task: a task per
    /// message, and the two it resumed, were a large part of a fix's CPU at 10,000 fixes/s.
    private func answerNext() {
        guard phase == .ready, let rider else { return }
        repeat {
            while unanswered.count < Self.atOnce, let text = waiting.popFirst() {
                unanswered.append(answers.take(text, from: rider))
            }
            storeNext()
        } while unanswered.count < Self.atOnce && !waiting.isEmpty
    }

    /// Answers the oldest messages that need no write, and starts storing the oldest one that does.
    private func storeNext() {
        while !isStoring, let step = unanswered.first, let socket {
            switch step {
            case .answered(let answer):
                unanswered.removeFirst()
                socket.send(text: answer)
            case .storing(let taken, let ref):
                isStoring = true
                let (answers, handle) = (answers, socket.handle(self))
                answers.ingest.store(taken) { stored in
                    handle.executeAfterReads { stream in stream.stored(answers.text(for: stored, ref: ref)) }
                }
            }
        }
    }

    private func stored(_ answer: String) {
        guard phase != .done else { return }
        isStoring = false
        unanswered.removeFirst()
        socket?.send(text: answer)
        answerNext()
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

    /// The `ack` of a stored batch, or the `error` with the problem; both carry the message's `ref`.
    func text(for stored: Result<LocationIngest.Receipt, any Error>, ref: String?) -> String {
        switch stored {
        case .success(let receipt): Self.ack(receipt, ref: ref)
        case .failure(let error): SocketPolicy.problemMessage(for: error, path: path, reference: ref)
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
