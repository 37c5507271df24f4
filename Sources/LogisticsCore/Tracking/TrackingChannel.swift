import Foundation

/// The live-tracking state of one order, without any I/O: which rider fixes become `location` messages (at most
/// one per 5 s unless the rider moved more than 25 m; never backwards in time; never a fix worse than 100 m),
/// when the stream turns `stale` (no fix for 15 s by default), status changes and the final `ended`, and a bounded history
/// so a reconnecting client gets exactly the messages it missed, or a `resync` when they are too old.
public struct TrackingChannel: Sendable {
    public static let throttleSeconds: TimeInterval = 5
    public static let throttleDistanceM = 25.0
    public static let defaultStaleAfterSeconds: TimeInterval = 15
    public static let worstShownAccuracyM = 100.0

    /// What a reconnecting client gets for `{"resumeFrom": seq}`.
    public enum Replay: Sendable, Equatable {
        case messages([TrackingMessage])
        /// Too far behind for the history: send a fresh snapshot instead.
        case resync
    }

    public private(set) var seq: Int
    /// Names this run of `seq` values: a channel forgotten and opened again, or the same order on another
    /// instance, counts from scratch, so a client resuming from another stream must be told to resync.
    public let stream: String
    public private(set) var status: OrderStatus
    /// The last position shown to the customer, and the newest usable fix (which may be throttled).
    public private(set) var lastShown: TrackedPosition?
    public private(set) var lastFix: TrackedPosition?
    public private(set) var isStale = false
    /// No fix for this long turns the stream `stale` (15 s in the contract; shorter in browser tests).
    public let staleAfterSeconds: TimeInterval
    private var history: [TrackingMessage] = []
    private let historyLimit: Int

    public init(
        status: OrderStatus, seq: Int = 0, lastFix: TrackedPosition? = nil, historyLimit: Int = 256,
        stream: String = UUID().lowercased, staleAfterSeconds: TimeInterval = defaultStaleAfterSeconds
    ) {
        self.staleAfterSeconds = staleAfterSeconds
        self.stream = stream
        self.status = status
        self.seq = seq
        self.lastFix = lastFix
        self.lastShown = lastFix
        self.historyLimit = historyLimit
    }

    public var hasEnded: Bool { Self.endsTracking(status) }

    /// A parcel going back to the store is no longer coming to the customer: following the rider stops there.
    public static func endsTracking(_ status: OrderStatus) -> Bool { status.isFinal || status == .returningToStore }

    /// Tracking is offered only while the parcel is on its way (**R** BR-001).
    public static func isTrackable(_ status: OrderStatus) -> Bool {
        status == .inTransit || status == .arrivedAtDestination
    }

    /// A new rider fix; returns the `location` message to publish, if any.
    public mutating func record(_ fix: TrackedPosition) -> TrackingMessage? {
        guard !hasEnded, fix.isShowable else { return nil }
        if let lastFix, fix.recordedAt <= lastFix.recordedAt { return nil }
        lastFix = fix
        isStale = false
        if let shown = lastShown,
            fix.recordedAt.timeIntervalSince(shown.recordedAt) < Self.throttleSeconds,
            fix.point.distanceM(to: shown.point) <= Self.throttleDistanceM
        {
            return nil
        }
        lastShown = fix
        return append(.location(seq: seq + 1, position: fix))
    }

    /// The order's status changed; returns `status`, followed by `ended` when the order is over.
    public mutating func statusChanged(to newStatus: OrderStatus, at occurredAt: Date) -> [TrackingMessage] {
        // Events can reach the hub late (the outbox is drained in passes): never let the stream go backwards.
        guard !hasEnded, newStatus.isFinal || Self.progress(newStatus) > Self.progress(status) else { return [] }
        status = newStatus
        var messages = [append(.status(seq: seq + 1, status: newStatus, occurredAt: occurredAt))]
        if Self.endsTracking(newStatus) { messages.append(append(.ended(seq: seq + 1, status: newStatus))) }
        return messages
    }

    private static func progress(_ status: OrderStatus) -> Int {
        switch status {
        case .pendingVendorAcceptance: 0
        case .preparing: 1
        case .readyForPickup: 2
        case .riderAssigned: 3
        case .inTransit: 4
        case .arrivedAtDestination: 5
        case .returningToStore: 6
        case .delivered, .cancelled, .failed, .returned: 7
        }
    }

    /// Called on a timer; returns `stale` once the newest fix is `staleAfterSeconds` old (or there never was one).
    public mutating func checkStale(now: Date, since start: Date) -> TrackingMessage? {
        guard !hasEnded, !isStale else { return nil }
        let reference = lastFix?.recordedAt ?? start
        guard now.timeIntervalSince(reference) >= staleAfterSeconds else { return nil }
        isStale = true
        return append(.stale(seq: seq + 1, lastFixAt: lastFix?.recordedAt))
    }

    /// The messages after `resumeFrom`, in order, or `resync` when some of them have left the history or the
    /// client's seq belongs to another stream.
    public func replay(after resumeFrom: Int, stream: String? = nil) -> Replay {
        if let stream, stream != self.stream { return .resync }
        // Ahead of this channel: the client counted on another stream.
        guard resumeFrom <= seq else { return .resync }
        guard resumeFrom < seq else { return .messages([]) }
        let kept = history.suffix(historyLimit)
        guard resumeFrom >= 0, let oldest = kept.first?.seq, resumeFrom + 1 >= oldest else { return .resync }
        return .messages(kept.filter { $0.seq > resumeFrom })
    }

    private mutating func append(_ message: TrackingMessage) -> TrackingMessage {
        seq = message.seq
        history.append(message)
        // The oldest go a quarter of the history at a time (replay reads the last `historyLimit`): removed one per
        // message, every fix moved the whole history down by one.
        if history.count > historyLimit + max(1, historyLimit / 4) {
            history.removeFirst(history.count - historyLimit)
        }
        return message
    }
}
