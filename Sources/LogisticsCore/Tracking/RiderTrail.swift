import Foundation

/// What one rider's phone has reported lately, kept in memory so the hot path needs no database read: the newest
/// position (for dispatch), the newest one good enough to show a customer, exact duplicates already seen, and
/// which fixes the thinned history keeps (one per 10 s or 25 m, plus every late fix).
public struct RiderTrail: Sendable {
    public static let historySpacingSeconds: TimeInterval = 10
    public static let historySpacingM = 25.0
    /// How many recent fixes are remembered to recognise a re-sent batch; the database's unique index catches
    /// older ones.
    static let rememberedFixes = 64

    public private(set) var newest: LocationFix?
    public private(set) var newestShowable: LocationFix?
    private var lastKept: LocationFix?
    private var seen: Set<FixIdentity> = []
    private var seenOrder: [FixIdentity] = []

    public init() {}

    /// The outcome of one batch.
    public struct Intake: Sendable, Equatable {
        /// Fixes not seen before, oldest first.
        public var fresh: [LocationFix] = []
        /// The subset the history keeps.
        public var kept: [LocationFix] = []
        public var duplicates = 0
        /// Whether the batch moved `newest` or `newestShowable` forward (they are then persisted).
        public var movedForward = false
    }

    public mutating func take(_ fixes: [LocationFix]) -> Intake {
        var intake = Intake()
        for fix in fixes.sorted(by: { $0.recordedAt < $1.recordedAt }) {
            guard remember(fix.identity) else {
                intake.duplicates += 1
                continue
            }
            intake.fresh.append(fix)
            if newest.map({ fix.recordedAt > $0.recordedAt }) ?? true {
                newest = fix
                intake.movedForward = true
            }
            if fix.trackedPosition.isShowable,
                newestShowable.map({ fix.recordedAt > $0.recordedAt }) ?? true
            {
                newestShowable = fix
                intake.movedForward = true
            }
            if shouldKeep(fix) { intake.kept.append(fix) }
        }
        return intake
    }

    private mutating func shouldKeep(_ fix: LocationFix) -> Bool {
        guard let lastKept else {
            self.lastKept = fix
            return true
        }
        // A late fix (a batch queued offline arriving after newer ones) fills a hole in the history: keep it.
        guard fix.recordedAt > lastKept.recordedAt else { return true }
        guard
            fix.recordedAt.timeIntervalSince(lastKept.recordedAt) >= Self.historySpacingSeconds
                || fix.point.distanceM(to: lastKept.point) >= Self.historySpacingM
        else { return false }
        self.lastKept = fix
        return true
    }

    /// Forgets fixes whose write failed, so the phone's retry is not taken for a duplicate.
    public mutating func forget(_ fixes: [LocationFix]) {
        for fix in fixes { seen.remove(fix.identity) }
    }

    /// False when the fix was already seen.
    private mutating func remember(_ identity: FixIdentity) -> Bool {
        guard seen.insert(identity).inserted else { return false }
        seenOrder.append(identity)
        if seenOrder.count > Self.rememberedFixes * 2 {
            let forgotten = seenOrder.count - Self.rememberedFixes
            for old in seenOrder.prefix(forgotten) { seen.remove(old) }
            seenOrder.removeFirst(forgotten)
        }
        return true
    }
}
