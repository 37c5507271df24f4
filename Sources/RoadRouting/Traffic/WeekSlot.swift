import Foundation

/// A quarter of an hour of the week in the city's local time; slot 0 starts on Monday at 00:00. Learned speeds are
/// kept per slot, so the Monday rush hour and a quiet Sunday morning are told apart.
public struct WeekSlot: Hashable, Sendable, Comparable {
    public static let count = 7 * 24 * 4
    public static let duration: TimeInterval = 15 * 60

    public let index: Int

    public init(index: Int) {
        precondition((0..<Self.count).contains(index), "a week has \(Self.count) slots")
        self.index = index
    }

    public init(_ date: Date, timeZone: TimeZone) {
        let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        // 1 January 1970 was a Thursday, three days after a Monday.
        let sinceMonday = local + 3 * 86_400
        let week = 7 * 86_400.0
        let intoWeek = sinceMonday - (sinceMonday / week).rounded(.down) * week
        index = min(Self.count - 1, Int(intoWeek / Self.duration))
    }

    /// "Mon 08:15": for logs, benchmarks and the simulator's schedule.
    public var label: String {
        let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let minutes = (index % (24 * 4)) * 15
        return "\(days[index / (24 * 4)]) " + String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }

    public static func < (lhs: WeekSlot, rhs: WeekSlot) -> Bool { lhs.index < rhs.index }
}
