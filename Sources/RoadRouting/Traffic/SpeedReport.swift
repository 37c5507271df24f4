import Foundation

/// One speed an external traffic feed reports for one road segment, named by the OSM nodes at its ends, in the
/// direction from the first to the second.
public struct SpeedReport: Sendable, Equatable {
    public var fromOSMNode: Int64
    public var toOSMNode: Int64
    public var metresPerSecond: Double
    public var observedAt: Date

    public init(fromOSMNode: Int64, toOSMNode: Int64, metresPerSecond: Double, observedAt: Date) {
        self.fromOSMNode = fromOSMNode
        self.toOSMNode = toOSMNode
        self.metresPerSecond = metresPerSecond
        self.observedAt = observedAt
    }
}

extension RoadMap {
    /// Takes a feed's speed as a live observation; false when this map has no such segment.
    @discardableResult
    public func apply(_ report: SpeedReport) -> Bool {
        guard let arc = segments.arc(fromOSMNode: report.fromOSMNode, toOSMNode: report.toOSMNode) else {
            return false
        }
        traffic.record(arc: arc, metresPerSecond: report.metresPerSecond, observedAt: report.observedAt)
        return true
    }
}
