import Foundation
import Synchronization

/// Speeds learned from the fleet per road segment and quarter hour of the week: what a street is like on a Monday
/// at 08:15, as opposed to right now (`LiveTraffic`) or by its road class (the profile).
///
/// Each moving fix matched to a segment adds a sample to that segment's slot. A segment with too few samples in a
/// slot borrows from its road class: the class's mean share of free flow in that slot, applied to the segment's own
/// free-flow speed. Samples are kept as pace (seconds per metre), whose mean is the harmonic mean speed: the one
/// that gives the right travel time.
public final class LearnedSpeeds: Sendable {
    public struct Tally: Sendable, Equatable {
        public var paceSum: Double
        public var samples: Int

        public init(paceSum: Double, samples: Int) {
            self.paceSum = paceSum
            self.samples = samples
        }

        static let none = Tally(paceSum: 0, samples: 0)

        public var metresPerSecond: Double { Double(samples) / max(paceSum, .leastNonzeroMagnitude) }

        static func + (lhs: Tally, rhs: Tally) -> Tally {
            Tally(paceSum: lhs.paceSum + rhs.paceSum, samples: lhs.samples + rhs.samples)
        }
    }

    /// A segment's tally in one slot, with the segment named by its OSM nodes: how tallies are stored and shared.
    public struct Entry: Sendable, Equatable {
        public var fromOSMNode: Int64
        public var toOSMNode: Int64
        public var slot: WeekSlot
        public var tally: Tally

        public init(fromOSMNode: Int64, toOSMNode: Int64, slot: WeekSlot, tally: Tally) {
            self.fromOSMNode = fromOSMNode
            self.toOSMNode = toOSMNode
            self.slot = slot
            self.tally = tally
        }
    }

    private struct ClassTally {
        var shareSum = 0.0
        var samples = 0

        mutating func add(share: Double, samples count: Int) {
            shareSum += share * Double(count)
            samples += count
        }
    }

    private struct State {
        var timeZone = TimeZone(identifier: "UTC")!
        /// By `arc * WeekSlot.count + slot`.
        var segments: [Int: Tally] = [:]
        /// By `class * WeekSlot.count + slot`: shares of free flow.
        var classes: [Int: ClassTally] = [:]
        /// Samples not yet handed to storage.
        var pending: [Int: Tally] = [:]
        var revision = 0

        /// Nothing learned yet: class tallies are made from segment tallies, so none exist without them.
        var isEmpty: Bool { segments.isEmpty }
    }

    /// Samples a segment needs in a slot before its own speed is trusted there.
    public let minimumSegmentSamples: Int
    /// Samples a road class needs in a slot before it stands in for its thin segments.
    public let minimumClassSamples: Int
    private let graph: RoadGraph
    private let segmentNames: OSMSegments
    private let state = Mutex(State())

    public init(
        graph: RoadGraph, segments: OSMSegments, minimumSegmentSamples: Int = 3, minimumClassSamples: Int = 20
    ) {
        self.graph = graph
        self.segmentNames = segments
        self.minimumSegmentSamples = minimumSegmentSamples
        self.minimumClassSamples = minimumClassSamples
    }

    /// The time zone whose clock the slots follow; set once, before any sample, from the server's configuration.
    public var timeZone: TimeZone {
        get { state.withLock { $0.timeZone } }
        set { state.withLock { $0.timeZone = newValue } }
    }

    public func slot(of date: Date) -> WeekSlot { WeekSlot(date, timeZone: timeZone) }

    /// Grows with every sample and every merge: unchanged means the learned weights are unchanged.
    public var revision: Int { state.withLock { $0.revision } }

    /// One speed observed on an original arc at a moment.
    public func record(arc: Int, metresPerSecond: Double, at date: Date) {
        guard arc >= 0, arc < graph.arcCount, metresPerSecond.isFinite, metresPerSecond >= 1 else { return }
        let sample = Tally(paceSum: 1 / metresPerSecond, samples: 1)
        let share = metresPerSecond / freeFlowSpeed(arc)
        state.withLock { state in
            let slot = WeekSlot(date, timeZone: state.timeZone).index
            let key = arc * WeekSlot.count + slot
            state.segments[key] = (state.segments[key] ?? .none) + sample
            state.pending[key] = (state.pending[key] ?? .none) + sample
            state.classes[classKey(arc, slot), default: ClassTally()].add(share: share, samples: 1)
            state.revision += 1
        }
    }

    /// The learned speed of an original arc in a slot: its own when it has enough samples, else its class's share
    /// of its free-flow speed, else nil (the profile's speed stands).
    public func metresPerSecond(arc: Int, slot: WeekSlot) -> Double? {
        state.withLock { speed(arc: arc, slot: slot.index, in: $0) }
    }

    /// Lends `body` a lookup of an arc's learned speed at a moment, all under one lock: narrating a route asks for
    /// every piece at the moment the rider reaches it, and four routes at once contended for the lock per piece.
    public func withLookup<Result>(_ body: (_ speed: (_ arc: Int, _ at: Date) -> Double?) -> Result) -> Result {
        state.withLock { state in
            guard !state.isEmpty else { return body { _, _ in nil } }
            let timeZone = state.timeZone
            // Every UTC offset in use is a whole number of quarter hours, so the slot can only change when the UTC
            // quarter hour does; the time zone's offset (an ICU call) is asked once per quarter, not per piece.
            var quarter = Int.min
            var slot = 0
            return body { arc, date in
                let dateQuarter = Int((date.timeIntervalSince1970 / WeekSlot.duration).rounded(.down))
                if dateQuarter != quarter {
                    quarter = dateQuarter
                    slot = WeekSlot(date, timeZone: timeZone).index
                }
                return speed(arc: arc, slot: slot, in: state)
            }
        }
    }

    /// Every arc's learned speed in a slot, where one is known, under one lock: what a customisation folds in.
    public func speeds(slot: WeekSlot, arcs: [Int32]) -> [Double?] {
        state.withLock { state in
            if state.isEmpty { return Array(repeating: nil, count: arcs.count) }
            return arcs.map { speed(arc: Int($0), slot: slot.index, in: state) }
        }
    }

    /// Tallies held, one per segment and quarter hour of the week driven.
    public var tallies: Int { state.withLock { $0.segments.count } }

    /// Keeps at most `maximum` tallies, the best sampled: the table grows with every new segment and slot the
    /// fleet drives, up to the map's arcs × 672, which on a city map is more than a server should hold. Past the cap
    /// the thinnest tenth goes (they are stored, and counted again from the samples still to come). Returns how many
    /// went.
    @discardableResult
    public func cap(_ maximum: Int) -> Int {
        state.withLock { state in
            guard state.segments.count > maximum else { return 0 }
            let keep = maximum * 9 / 10
            let before = state.segments.count
            let kept = state.segments.sorted { $0.value.samples > $1.value.samples }.prefix(keep)
            state.segments = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
            state.classes = [:]
            for (key, tally) in state.segments {
                let arc = key / WeekSlot.count
                state.classes[classKey(arc, key % WeekSlot.count), default: ClassTally()].add(
                    share: tally.metresPerSecond / freeFlowSpeed(arc), samples: tally.samples)
            }
            state.revision += 1
            return before - state.segments.count
        }
    }

    /// Whether anything has been learned at all.
    public var isEmpty: Bool { state.withLock { $0.isEmpty } }

    /// The samples gathered since the last call, for storage; they stay counted here.
    public func takePending() -> [Entry] {
        let pending = state.withLock { state in
            defer { state.pending = [:] }
            return state.pending
        }
        return pending.map { key, tally in
            let nodes = segmentNames.osmNodes(ofArc: key / WeekSlot.count)
            return Entry(
                fromOSMNode: nodes.from, toOSMNode: nodes.to, slot: WeekSlot(index: key % WeekSlot.count),
                tally: tally)
        }
    }

    /// Hands back samples that storage could not take, so the next attempt carries them.
    public func restorePending(_ entries: [Entry]) {
        let keyed = resolve(entries)
        state.withLock { state in
            for (key, tally) in keyed {
                state.pending[key] = (state.pending[key] ?? .none) + tally
            }
        }
    }

    /// Takes the stored totals (every instance's samples) for these segments and slots, keeping the samples not
    /// yet stored on top. Segments this map does not have are skipped; returns how many were.
    @discardableResult
    public func merge(stored entries: [Entry]) -> Int {
        let keyed = resolve(entries)
        state.withLock { state in
            for (key, tally) in keyed {
                state.segments[key] = tally + (state.pending[key] ?? .none)
            }
            state.classes = [:]
            for (key, tally) in state.segments {
                let arc = key / WeekSlot.count
                state.classes[classKey(arc, key % WeekSlot.count), default: ClassTally()].add(
                    share: tally.metresPerSecond / freeFlowSpeed(arc), samples: tally.samples)
            }
            state.revision += 1
        }
        return entries.count - keyed.count
    }

    private func resolve(_ entries: [Entry]) -> [(Int, Tally)] {
        entries.compactMap { entry in
            guard let arc = segmentNames.arc(fromOSMNode: entry.fromOSMNode, toOSMNode: entry.toOSMNode) else {
                return nil
            }
            return (arc * WeekSlot.count + entry.slot.index, entry.tally)
        }
    }

    private func speed(arc: Int, slot: Int, in state: State) -> Double? {
        if let own = state.segments[arc * WeekSlot.count + slot], own.samples >= minimumSegmentSamples {
            return own.metresPerSecond
        }
        guard let kind = state.classes[classKey(arc, slot)], kind.samples >= minimumClassSamples else { return nil }
        return freeFlowSpeed(arc) * kind.shareSum / Double(kind.samples)
    }

    private func classKey(_ arc: Int, _ slot: Int) -> Int {
        Int(graph.wayClass[Int(graph.arcWay[arc])]) * WeekSlot.count + slot
    }

    private func freeFlowSpeed(_ arc: Int) -> Double {
        Double(graph.arcDistanceM[arc]) / max(0.001, Double(graph.arcDurationS[arc]))
    }
}
