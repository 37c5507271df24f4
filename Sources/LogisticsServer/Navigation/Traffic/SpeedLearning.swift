import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import RoadRouting
import ServiceLifecycle
import Threads

/// Keeps the speeds the fleet taught across restarts and instances: loads the stored totals at start, then every
/// `interval` stores this instance's new samples and takes in what the others stored. A last store runs at
/// shutdown, so a clean stop loses nothing; a crash loses at most one interval of samples.
struct SpeedLearning: Service {
    let maps: [RoadMap]
    let repository: any LearnedSpeedRepository
    let interval: Duration
    let clock: any WallClock
    let logger: Logger

    /// Rows are read again from this long before the last read: another instance's write may commit late.
    static let readOverlap: TimeInterval = 300

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var readFrom: [RoutingProfile.Name: Date] = [:]
            while !Task.isCancelled {
                for map in maps { await exchange(map, readFrom: &readFrom) }
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
        for map in maps { await store(map) }
    }

    private func exchange(_ map: RoadMap, readFrom: inout [RoutingProfile.Name: Date]) async {
        await store(map)
        let profile = map.profile
        let readAt = clock.now()
        do {
            let rows = try await repository.learnedSpeeds(profile: profile.rawValue, changedSince: readFrom[profile])
            guard !rows.isEmpty else { return }
            let unknown = await OwnThread.run { map.learned.merge(stored: rows.map(Self.entry)) }
            readFrom[profile] = readAt.addingTimeInterval(-Self.readOverlap)
            if unknown > 0 {
                logger.info(
                    "learned speeds for segments this map does not have were skipped",
                    metadata: ["profile": "\(profile.rawValue)", "segments": "\(unknown)"])
            }
        } catch {
            logger.warning(
                "learned speeds could not be read; trying again",
                metadata: ["profile": "\(profile.rawValue)", "error": "\(error)"])
        }
    }

    private func store(_ map: RoadMap) async {
        let pending = map.learned.takePending()
        guard !pending.isEmpty else { return }
        let profile = map.profile.rawValue
        do {
            try await repository.addLearnedSpeeds(pending.map { Self.row($0, profile: profile) }, now: clock.now())
        } catch {
            map.learned.restorePending(pending)
            logger.warning(
                "learned speeds could not be stored; keeping them for the next try",
                metadata: ["profile": "\(profile)", "segments": "\(pending.count)", "error": "\(error)"])
        }
    }

    static func row(_ entry: LearnedSpeeds.Entry, profile: String) -> LearnedSpeedRow {
        LearnedSpeedRow(
            profile: profile, fromNode: entry.fromOSMNode, toNode: entry.toOSMNode, slot: entry.slot.index,
            paceSum: entry.tally.paceSum, samples: entry.tally.samples)
    }

    static func entry(_ row: LearnedSpeedRow) -> LearnedSpeeds.Entry {
        LearnedSpeeds.Entry(
            fromOSMNode: row.fromNode, toOSMNode: row.toNode,
            slot: WeekSlot(index: min(max(row.slot, 0), WeekSlot.count - 1)),
            tally: LearnedSpeeds.Tally(paceSum: row.paceSum, samples: row.samples))
    }
}
