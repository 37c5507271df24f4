import Foundation
import LogisticsCore

/// What the rider did, recorded at the tap: kept on disk until the server has it, sent strictly in order.
public struct RiderAction: Codable, Sendable, Equatable, Identifiable {
    public enum Kind: Codable, Sendable, Equatable {
        case status(TaskStatus, farFromDestinationConfirmed: Bool, reason: String?)
        case deliveryCode(String)
        /// A proof-of-delivery photo the app saved at this path; the file is deleted once the server has it.
        case photo(path: String)
    }

    /// The status change's `eventId` (and the proof's `Idempotency-Key`): a resend is harmless.
    public var id: UUID
    public var taskId: String
    public var kind: Kind
    /// The tap time, kept as tapped however late the action reaches the server.
    public var occurredAt: Date
    public var location: GeoPoint?
    /// Why there is no location, when there is none (the server records it; without one it refuses the change).
    public var noLocationReason: NoLocationReason?

    public init(
        id: UUID = UUID(), taskId: String, kind: Kind, occurredAt: Date, location: GeoPoint?,
        noLocationReason: NoLocationReason? = nil
    ) {
        self.id = id
        self.taskId = taskId
        self.kind = kind
        self.occurredAt = occurredAt
        self.location = location
        self.noLocationReason = noLocationReason
    }
}

/// The rider's offline queue. Every action is written to disk before it is attempted, sent in the order it
/// was tapped, retried with backoff while the network is away ("No connection, retrying..."), and stops at a
/// refusal the server will repeat (a 409 or 422), which the app shows instead of retrying forever.
public actor ActionQueue {
    public enum State: Sendable, Equatable {
        case idle
        case sending
        case retrying(message: String, attempt: Int)
        /// The first action was refused for good; nothing behind it is sent until the app resolves it.
        case blocked(RiderAction, RiderProblem)
    }

    public static let retryingMessage = "No connection, retrying..."

    private let api: RiderAPI
    private let file: URL
    private let backoff: RetryPolicy
    private let sleep: @Sendable (Duration) async throws -> Void
    private var actions: [RiderAction]
    private var syncing = false
    public private(set) var state: State = .idle
    /// The server's answer to the last status change sent.
    public private(set) var lastTask: RiderTask?
    /// Every state the queue passed through, for the app's "pending" badge and for tests.
    private var observers: [@Sendable (State) -> Void] = []

    /// Opens the queue stored in `file` (created when missing): actions recorded before a restart are still there.
    public init(
        api: RiderAPI, file: URL, backoff: RetryPolicy = RetryPolicy(base: 1, cap: 30, budget: .infinity),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) throws {
        self.api = api
        self.file = file
        self.backoff = backoff
        self.sleep = sleep
        if let data = try? Data(contentsOf: file), !data.isEmpty {
            actions = try JSONDecoder().decode([RiderAction].self, from: data)
        } else {
            actions = []
        }
    }

    public var pending: [RiderAction] { actions }

    /// Where queued photos wait, beside the queue's file.
    public var photoDirectory: URL { file.deletingLastPathComponent().appendingPathComponent("photos") }

    public func observe(_ observer: @escaping @Sendable (State) -> Void) { observers.append(observer) }

    /// Records an action (on disk first); the caller then `sync()`s, now or when the network returns.
    public func record(_ action: RiderAction) throws {
        actions.append(action)
        try persist()
    }

    /// Sends pending actions in order until none is left (returns `.idle`) or one is refused for good
    /// (`.blocked`). Network failures are retried here with backoff; cancel the task to give up for now.
    @discardableResult
    public func sync() async -> State {
        if case .blocked = state { return state }
        // One sender at a time: a second caller (a tap while the network is away) leaves its action to this one.
        guard !syncing else { return state }
        syncing = true
        defer { syncing = false }
        var attempt = 0
        while let next = actions.first {
            set(attempt == 0 ? .sending : state)
            do {
                try await send(next)
                actions.removeFirst()
                try? persist()
                attempt = 0
            } catch let error as RiderAPIError where error.isPermanent {
                if case .problem(let problem) = error { set(.blocked(next, problem)) }
                return state
            } catch {
                attempt += 1
                set(.retrying(message: Self.retryingMessage, attempt: attempt))
                let start = Date()
                let wait =
                    backoff.next(afterAttempt: attempt, retryAfter: nil, since: start, now: start)?
                    .timeIntervalSince(start) ?? backoff.cap
                do { try await sleep(.milliseconds(Int(wait * 1000))) } catch { return state }
            }
        }
        set(.idle)
        return state
    }

    /// After the app showed a blocking refusal: drop that action and carry on with the rest.
    public func discardBlocked() throws {
        guard case .blocked(let action, _) = state else { return }
        actions.removeAll { $0.id == action.id }
        try persist()
        set(.idle)
    }

    /// On launch: actions for a task that is no longer the rider's active one are dropped (already applied
    /// before the app was killed, or the order was cancelled meanwhile); returns what was dropped.
    @discardableResult
    public func reconcile(activeTask: RiderTask?) throws -> [RiderAction] {
        // With batching the trip's other tasks are live too: taps queued for them stay.
        let live = Set([activeTask?.taskId].compactMap { $0 } + (activeTask?.stops.map(\.taskId) ?? []))
        let stale = actions.filter { !live.contains($0.taskId) }
        actions.removeAll { !live.contains($0.taskId) }
        try persist()
        if activeTask != nil { lastTask = activeTask }
        return stale
    }

    private func send(_ action: RiderAction) async throws {
        switch action.kind {
        case .status(let status, let confirmed, let reason):
            lastTask = try await api.updateStatus(
                taskId: action.taskId,
                StatusUpdate(
                    status: status, location: action.location,
                    noLocationReason: action.location == nil ? action.noLocationReason ?? .noFix : nil,
                    occurredAt: action.occurredAt, eventId: action.id, farFromDestinationConfirmed: confirmed,
                    reason: reason))
        case .deliveryCode(let code):
            try await api.submitDeliveryCode(
                taskId: action.taskId, code: code, capturedAt: action.occurredAt,
                location: action.location ?? GeoPoint(lat: 0, lon: 0), actionId: action.id)
        case .photo(let path):
            guard let bytes = FileManager.default.contents(atPath: path) else {
                throw RiderAPIError.problem(
                    RiderProblem(status: 400, code: "PHOTO_MISSING", title: "The photo is no longer on the phone"))
            }
            try await api.submitPhoto(
                taskId: action.taskId, photo: Array(bytes), capturedAt: action.occurredAt,
                location: action.location ?? GeoPoint(lat: 0, lon: 0), actionId: action.id)
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    private func set(_ new: State) {
        guard new != state else { return }
        state = new
        for observer in observers { observer(new) }
    }

    /// Written whole to a temporary file and renamed over the old one, so a crash never leaves half a queue.
    private func persist() throws {
        let data = try JSONEncoder().encode(actions)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = file.appendingPathExtension("tmp")
        try data.write(to: temporary)
        guard rename(temporary.path, file.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
    }
}
