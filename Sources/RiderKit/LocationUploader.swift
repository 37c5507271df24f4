import Foundation
import LogisticsCore

/// Decides which GPS fixes leave the phone and when, to spare the battery and the data plan: often while the
/// rider moves, in batches, and not at all off duty. Standing still, online or on a task, one fix goes at least every
/// `RiderPositionFreshness.heartbeatSeconds` (30 s), so dispatch never sees an idle rider as stale; the app asks its
/// GPS for a reading when `needsFreshFix` says so, since a phone standing still reports nothing. Failed uploads are
/// kept (newest 500) and go with the next batch; the server takes late fixes without moving the rider back.
public actor LocationUploader {
    public enum Duty: Sendable, Equatable {
        /// Not working: nothing is uploaded.
        case offDuty
        /// Online, waiting for offers: dispatch wants to know roughly where the rider is.
        case online
        /// Delivering: the customer is watching.
        case onTask
    }

    public struct Policy: Sendable, Equatable {
        /// Keep a fix this often while moving ...
        public var movingInterval: TimeInterval = 5
        /// ... and this often while standing still (or when only dispatch is watching): well inside the server's
        /// heartbeat, so the fix has time to come from the GPS and go.
        public var stationaryInterval: TimeInterval = RiderPositionFreshness.heartbeatSeconds - 10
        /// Faster than this (or this far from the last kept fix) counts as moving.
        public var movingSpeedMps: Double = 1.5
        public var movingDistanceM: Double = 25
        /// Send the batch when its oldest fix is this old (moving) ...
        public var movingBatchAge: TimeInterval = 10
        /// ... or this old (standing, online): at once, one fix a heartbeat.
        public var stationaryBatchAge: TimeInterval = 0
        public var maximumBatch = 50

        public init() {}
    }

    private let api: RiderAPI
    public let policy: Policy
    public private(set) var duty: Duty = .offDuty
    private var lastKept: LocationFix?
    private var batch: [LocationFix] = []
    private var moving = false
    public private(set) var uploads = 0

    public init(api: RiderAPI, policy: Policy = Policy()) {
        self.api = api
        self.policy = policy
    }

    public var pending: [LocationFix] { batch }

    public func setDuty(_ duty: Duty) {
        self.duty = duty
        if duty == .offDuty { batch.removeAll() }
    }

    /// Offers a fix from the GPS; returns whether it will be uploaded.
    @discardableResult
    public func record(_ fix: LocationFix) -> Bool {
        guard duty != .offDuty else { return false }
        if let last = lastKept {
            let moved = fix.point.distanceM(to: last.point)
            moving = (fix.speedMps ?? 0) >= policy.movingSpeedMps || moved >= policy.movingDistanceM
            let interval = duty == .onTask && moving ? policy.movingInterval : policy.stationaryInterval
            guard fix.recordedAt.timeIntervalSince(last.recordedAt) >= interval else { return false }
        }
        lastKept = fix
        batch.append(fix)
        if batch.count > LocationFix.maximumBatch { batch.removeFirst(batch.count - LocationFix.maximumBatch) }
        return true
    }

    /// Whether the app should ask its GPS for a reading now (on duty, and nothing kept for `stationaryInterval`): a
    /// phone standing still reports nothing by itself, and the server must still hear from an online rider.
    public func needsFreshFix(now: Date) -> Bool {
        guard duty != .offDuty else { return false }
        guard let last = lastKept else { return true }
        return now.timeIntervalSince(last.recordedAt) >= policy.stationaryInterval
    }

    /// Sends the batch if it is due (old enough, or full); returns whether an upload succeeded.
    @discardableResult
    public func flushIfDue(now: Date) async -> Bool {
        guard let oldest = batch.first else { return false }
        let age = duty == .onTask && moving ? policy.movingBatchAge : policy.stationaryBatchAge
        guard now.timeIntervalSince(oldest.recordedAt) >= age || batch.count >= policy.maximumBatch else {
            return false
        }
        return await flush()
    }

    /// Sends whatever is waiting now (a status tap, the app going to the background).
    @discardableResult
    public func flush() async -> Bool {
        guard !batch.isEmpty else { return false }
        let sending = batch
        do {
            try await api.sendLocations(sending)
            batch.removeFirst(min(sending.count, batch.count))
            uploads += 1
            return true
        } catch let error as RiderAPIError where error.isPermanent {
            // A batch the server refuses would be refused again: drop it rather than block every later fix.
            batch.removeFirst(min(sending.count, batch.count))
            return false
        } catch {
            return false
        }
    }
}
