import Foundation
import LogisticsCore

/// Decides which GPS fixes leave the phone and when, to spare the battery and the data plan: often while the
/// rider moves, rarely while they stand still, in batches, and not at all off duty. Failed uploads are kept
/// (newest 500) and go with the next batch; the server takes late fixes without moving the rider back.
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
        /// ... and this often while standing still (or when only dispatch is watching).
        public var stationaryInterval: TimeInterval = 30
        /// Faster than this (or this far from the last kept fix) counts as moving.
        public var movingSpeedMps: Double = 1.5
        public var movingDistanceM: Double = 25
        /// Send the batch when its oldest fix is this old (moving) ...
        public var movingBatchAge: TimeInterval = 10
        /// ... or this old (standing, online).
        public var stationaryBatchAge: TimeInterval = 60
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
