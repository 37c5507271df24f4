import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import ServiceLifecycle
import Synchronization

/// Live tracking across instances on one PostgreSQL: every update goes to the local hub at once and, coalesced
/// into few small `NOTIFY` payloads, to the other instances, which each hold one `LISTEN` connection.
///
/// Limits, documented in the README: a payload must stay under 8,000 bytes (we pack up to ~7 KB, about 45 fixes);
/// every `NOTIFY` takes a cluster-wide lock at commit, so notifications serialise — fine for thousands per second,
/// not for hundreds of thousands; while PostgreSQL stalls, the queue of outgoing updates is bounded (the newest
/// position per rider wins; order events and notices are kept); a listener that reconnects has missed what was
/// sent meanwhile (positions heal with the next fix, status changes with the next poll of the snapshot). Beyond
/// that, use a dedicated broker.
final class PostgresTrackingRelay: TrackingRelay, Service {
    static let payloadLimit = 7_000

    private let hub: TrackingHub
    private let database: PostgresDatabase
    private let channel: String
    private let instance = UUID()
    private let ownPrefix: String
    private let logger: Logger
    private let outgoing: BufferedBatchQueue<RelayBacklog>
    private let listening = Mutex<[CheckedContinuation<Void, Never>]?>([])

    init(hub: TrackingHub, database: PostgresDatabase, schema: String?, logger: Logger) {
        self.hub = hub
        self.database = database
        // Instances on other schemas of the same database (tests, staging) must not hear each other.
        let suffix = (schema ?? "public").lowercased().filter { $0.isLetter || $0.isNumber || $0 == "_" }
        let channel = String("logistics_tracking_\(suffix)".prefix(63))
        self.channel = channel
        self.logger = logger
        // Everything queued while the previous notification was on its way goes out together; while the database
        // stalls, the backlog keeps only each rider's newest position (`RelayBacklog`).
        let instance = self.instance
        ownPrefix = RelayPayload.prefix(from: instance)
        outgoing = BufferedBatchQueue(interval: LocationWriter.commitInterval) { updates in
            let payloads = RelayPayload.pack(updates, from: instance, limit: Self.payloadLimit)
            await Self.notify(payloads, channel: channel, database: database, logger: logger)
        }
    }

    /// Sends a batch's payloads in one statement, retrying while the database cannot be reached: they carry order
    /// events, which the other instances' customers must get. Meanwhile later updates wait in the bounded backlog.
    /// A payload the database refuses for itself is logged and dropped, so one bad message cannot hold the relay.
    static func notify(_ payloads: [String], channel: String, database: PostgresDatabase, logger: Logger) async {
        var delay = Duration.milliseconds(250)
        while !Task.isCancelled {
            do {
                try await database.notify(channel: channel, payloads: payloads)
                return
            } catch StoreError.unavailable(let detail) {
                logger.warning("tracking fan-out waits for the database", metadata: ["error": "\(detail)"])
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            } catch {
                guard payloads.count > 1 else {
                    logger.error("tracking fan-out dropped a refused message", metadata: ["error": "\(error)"])
                    return
                }
                // Only the payload the database refuses is dropped, not the batch it came with.
                for payload in payloads {
                    await notify([payload], channel: channel, database: database, logger: logger)
                }
                return
            }
        }
    }

    func publish(_ updates: [TrackingUpdate]) {
        hub.apply(updates)
        outgoing.submit(updates)
    }

    /// Returns once this instance hears the others (tests wait for it before sending).
    func waitUntilListening() async {
        await withCheckedContinuation { continuation in
            let isListening = listening.withLock { waiting -> Bool in
                guard waiting != nil else { return true }
                waiting!.append(continuation)
                return false
            }
            if isListening { continuation.resume() }
        }
    }

    func run() async throws {
        // The listener runs on its own and is not waited for at shutdown: when PostgreSQL cut the connection while
        // LISTEN was being set up, the call never returned and ignored cancellation, so the service group (and a
        // test's server) waited forever. Closing the pool afterwards (DatabaseLifecycle) ends that call.
        let listener = Task { await self.listenUntilCancelled() }
        try? await gracefulShutdown()
        listener.cancel()
    }

    private func listenUntilCancelled() async {
        while !Task.isCancelled {
            do {
                try await database.listen(channel: channel, onListening: { self.markListening() }) { payload in
                    self.receive(payload)
                }
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                logger.warning(
                    "tracking listener lost its connection; listening again", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func markListening() {
        let waiting = listening.withLock { waiting in
            defer { waiting = nil }
            return waiting ?? []
        }
        for continuation in waiting { continuation.resume() }
    }

    private func receive(_ payload: String) {
        // An instance hears its own notifications too; decoding them to throw them away showed in a lone
        // instance's profile. Payloads of this version start with their sender; others are decoded to find it.
        if payload.utf8.starts(with: ownPrefix.utf8) { return }
        guard let (from, updates) = RelayPayload.unpack(payload) else {
            logger.warning("ignoring an unreadable tracking notification")
            return
        }
        guard from != instance else { return }
        hub.apply(updates)
    }
}

/// The compact JSON of a notification: who sent it, fixes as short objects, events as the outbox's JSON.
/// `pack` writes it by hand and `unpack` reads it off the bytes (`JSONDecoder` for anything else): encoding every
/// fix of a batch with `JSONEncoder`, again at each halving that brought a batch under the limit, took a large share
/// of a busy server's CPU, even with no other instance listening.
enum RelayPayload {
    private struct Wire: Decodable {
        var from: UUID
        var fixes: [Fix]
        var events: [String]
        var notices: [Notice]
    }

    private struct Notice: Decodable {
        var r: UUID
        var m: String
    }

    private struct Fix: Decodable {
        var r: UUID
        var lat: Double
        var lon: Double
        var acc: Double?
        var spd: Double?
        var hdg: Double?
        /// Milliseconds since 1970.
        var t: Int64
    }

    /// Payloads of at most `limit` bytes, filled in the updates' order; each update is encoded once. A single
    /// update larger than the limit (no fix or event comes near it) is dropped rather than break the notification.
    static func pack(_ updates: [TrackingUpdate], from instance: UUID, limit: Int) -> [String] {
        var payloads: [String] = []
        var payload = PayloadBuilder(from: instance)
        for update in updates {
            let (section, bytes) = encode(update)
            guard PayloadBuilder.emptySize + bytes.count <= limit else { continue }
            if payload.size + bytes.count + 1 > limit {
                payloads.append(payload.finish())
                payload = PayloadBuilder(from: instance)
            }
            payload.add(bytes, to: section)
        }
        if !payload.isEmpty { payloads.append(payload.finish()) }
        return payloads
    }

    /// How every payload `from` packs begins.
    static func prefix(from instance: UUID) -> String { #"{"from":""# + instance.lowercased + #"""# }

    fileprivate enum Section: Int {
        case fixes, events, notices
    }

    /// Validated fixes hold only finite numbers, so `JSONOutput` writes them all as JSON numbers.
    private static func encode(_ update: TrackingUpdate) -> (Section, [UInt8]) {
        var json = JSONOutput(capacity: 160)
        switch update {
        case .fix(let riderId, let fix):
            json.object { json in
                json.field("r", riderId.lowercased)
                json.field("lat", fix.lat)
                json.field("lon", fix.lon)
                json.field("acc", fix.accuracyM)
                json.field("spd", fix.speedMps)
                json.field("hdg", fix.headingDeg)
                json.field("t", Int(fix.recordedAt.epochMillis))
            }
            return (.fixes, json.bytes)
        case .event(let notice):
            json.element(notice.json)
            return (.events, json.bytes)
        case .notice(let recipientId, let message):
            json.object { json in
                json.field("r", recipientId.lowercased)
                json.field("m", message)
            }
            return (.notices, json.bytes)
        }
    }

    static func unpack(_ payload: String) -> (UUID, [TrackingUpdate])? {
        var payload = payload
        if let read = payload.withUTF8({ read(UnsafeRawBufferPointer($0)) }) { return read }
        return decode(payload)
    }

    /// The payload as `pack` writes it, read off its bytes: on two instances `JSONDecoder` reading the other's fixes
    /// showed in each server's profile. Events and notices (rare, and free text) are decoded from their own bytes. nil
    /// for anything else (a number `pack` wrote with an exponent, a payload of another version), which `decode`
    /// then reads.
    static func read(_ bytes: UnsafeRawBufferPointer) -> (UUID, [TrackingUpdate])? {
        var reader = JSONByteReader(bytes)
        var from: UUID?
        var fixes: [TrackingUpdate] = []
        var events: [TrackingUpdate] = []
        var notices: [TrackingUpdate] = []
        var seen = JSONByteReader.RepeatedKeys()
        let complete = reader.members { reader, key in
            switch key {
            case "from":
                from = reader.string().flatMap(UUID.init(uuidString:))
                return seen.first(0) && from != nil
            case "fixes":
                guard seen.first(1), let read = reader.elements(fix) else { return false }
                fixes = read
            case "events":
                guard seen.first(2), let raw = reader.rawValue(), let texts = Self.decoded([String].self, raw) else {
                    return false
                }
                events = texts.compactMap { OrderEventNotice(json: $0).map { .event($0) } }
            case "notices":
                guard seen.first(3), let raw = reader.rawValue(), let read = Self.decoded([Notice].self, raw) else {
                    return false
                }
                notices = read.map { .notice(recipientId: $0.r, message: $0.m) }
            default:
                return false
            }
            return true
        }
        guard complete, seen.all(0, 1, 2, 3), let from, reader.isAtEnd() else { return nil }
        return (from, fixes + events + notices)
    }

    /// An array of events or notices; most payloads have none, written `[]`.
    private static func decoded<Element: Decodable>(_ type: [Element].Type, _ raw: UnsafeRawBufferPointer)
        -> [Element]?
    {
        if raw.count == 2, raw[0] == UInt8(ascii: "["), raw[1] == UInt8(ascii: "]") { return [] }
        return try? JSONDecoder().decode(type, from: Data(raw))
    }

    private static func fix(_ reader: inout JSONByteReader) -> TrackingUpdate? {
        var riderId: UUID?
        var fix = LocationFix(lat: .nan, lon: .nan, recordedAt: .distantPast)
        var seen = JSONByteReader.RepeatedKeys()
        let complete = reader.members { reader, key in
            switch key {
            case "r":
                riderId = reader.string().flatMap(UUID.init(uuidString:))
                return seen.first(0) && riderId != nil
            case "lat":
                guard seen.first(1), let lat = reader.number() else { return false }
                fix.lat = lat
            case "lon":
                guard seen.first(2), let lon = reader.number() else { return false }
                fix.lon = lon
            case "t":
                guard seen.first(3), let millis = reader.integer() else { return false }
                fix.recordedAt = Date(epochMillis: millis)
            case "acc": return seen.first(4) && reader.optionalNumber(&fix.accuracyM)
            case "spd": return seen.first(5) && reader.optionalNumber(&fix.speedMps)
            case "hdg": return seen.first(6) && reader.optionalNumber(&fix.headingDeg)
            default: return false
            }
            return true
        }
        guard complete, seen.all(0, 1, 2, 3), let riderId else { return nil }
        return .fix(riderId: riderId, fix: fix)
    }

    /// The payload read with `JSONDecoder`.
    static func decode(_ payload: String) -> (UUID, [TrackingUpdate])? {
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(payload.utf8)) else { return nil }
        var updates: [TrackingUpdate] = wire.fixes.map { fix in
            .fix(
                riderId: fix.r,
                fix: LocationFix(
                    lat: fix.lat, lon: fix.lon, accuracyM: fix.acc, speedMps: fix.spd, headingDeg: fix.hdg,
                    recordedAt: Date(epochMillis: fix.t)))
        }
        updates += wire.events.compactMap { OrderEventNotice(json: $0).map { .event($0) } }
        updates += wire.notices.map { .notice(recipientId: $0.r, message: $0.m) }
        return (wire.from, updates)
    }
}

/// One payload being filled: its three arrays and the size they will make.
private struct PayloadBuilder {
    /// `{"from":"…","fixes":[],"events":[],"notices":[]}`.
    static let emptySize = PayloadBuilder(from: UUID()).finish().utf8.count

    private let from: UUID
    private var sections: [[UInt8]] = [[], [], []]
    private var contentSize = 0

    init(from: UUID) { self.from = from }

    var size: Int { Self.emptySize + contentSize }
    var isEmpty: Bool { contentSize == 0 }

    mutating func add(_ bytes: [UInt8], to section: RelayPayload.Section) {
        if !sections[section.rawValue].isEmpty {
            sections[section.rawValue].append(UInt8(ascii: ","))
            contentSize += 1
        }
        sections[section.rawValue].append(contentsOf: bytes)
        contentSize += bytes.count
    }

    func finish() -> String {
        var out: [UInt8] = []
        out.append(contentsOf: RelayPayload.prefix(from: from).utf8)
        out.append(contentsOf: #","fixes":["#.utf8)
        out.append(contentsOf: sections[0])
        out.append(contentsOf: #"],"events":["#.utf8)
        out.append(contentsOf: sections[1])
        out.append(contentsOf: #"],"notices":["#.utf8)
        out.append(contentsOf: sections[2])
        out.append(contentsOf: #"]}"#.utf8)
        return String(decoding: out, as: UTF8.self)
    }
}
