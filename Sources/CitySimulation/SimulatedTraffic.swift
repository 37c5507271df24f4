import Foundation
import LogisticsCore

/// Streets the simulation slows down at chosen times of day: what rush hours do to a city's riders. Simulated
/// riders drive those streets at a share of their speed while the window is open, and report that speed in their
/// fixes, so the server's live traffic and its learned time-of-day speeds both see it.
public struct SimulatedTraffic: Sendable, Equatable {
    public struct Slowdown: Sendable, Equatable {
        public var street: String
        /// Minutes after midnight, local time; nil both: all day.
        public var fromMinute: Int?
        public var toMinute: Int?
        /// The share of the usual speed driven there.
        public var factor: Double

        public init(street: String, fromMinute: Int?, toMinute: Int?, factor: Double) {
            self.street = street
            self.fromMinute = fromMinute
            self.toMinute = toMinute
            self.factor = factor
        }

        public func covers(minuteOfDay minute: Int) -> Bool {
            guard let fromMinute, let toMinute else { return true }
            return fromMinute <= toMinute
                ? (fromMinute..<toMinute).contains(minute) : minute >= fromMinute || minute < toMinute
        }

        public var description: String {
            let window = fromMinute.map { from in
                "@" + Self.clock(from) + "-" + Self.clock(toMinute ?? 0)
            }
            // As the option is written (NAME[@HH:MM-HH:MM][xFACTOR]), so it can be given back as it is printed.
            return street + (window ?? "") + " x" + String(format: "%g", factor)
        }

        private static func clock(_ minute: Int) -> String { String(format: "%02d:%02d", minute / 60, minute % 60) }
    }

    public var slowdowns: [Slowdown] = []
    public var timeZone = TimeZone(identifier: "UTC")!

    public init(slowdowns: [Slowdown] = [], timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        self.slowdowns = slowdowns
        self.timeZone = timeZone
    }

    /// Monaco's morning rush: the port and seafront boulevards at a third of their speed, the avenues up the hill
    /// at half, from 08:00 to 09:00.
    public static let monacoMorning = SimulatedTraffic(
        slowdowns: [
            "Boulevard Albert 1er", "Avenue Princesse Grace", "Boulevard Louis II", "Boulevard du Larvotto",
        ].map { Slowdown(street: $0, fromMinute: 8 * 60, toMinute: 9 * 60, factor: 0.35) }
            + ["Boulevard Princesse Charlotte", "Avenue de la Costa", "Boulevard de Suisse"].map {
                Slowdown(street: $0, fromMinute: 8 * 60, toMinute: 9 * 60, factor: 0.5)
            })

    /// The scenario `--slow` options name, in a time zone named as `LOGISTICS_TIME_ZONE` is.
    public static func named(_ texts: [String], timeZone: String) throws -> SimulatedTraffic {
        guard let zone = TimeZone(identifier: timeZone) else {
            throw SimulationError("--time-zone must be a time zone name such as Europe/Monaco or UTC")
        }
        var traffic = SimulatedTraffic(timeZone: zone)
        for text in texts {
            if text == "monaco-morning" {
                traffic.slowdowns += monacoMorning.slowdowns
            } else {
                do { traffic.slowdowns.append(try parse(text)) } catch {
                    throw SimulationError("--slow \(text): \(error)")
                }
            }
        }
        return traffic
    }

    /// The share of its usual speed a street is driven at, at this moment (1 where nothing is slowed).
    public func factor(street: String, at date: Date) -> Double {
        guard !slowdowns.isEmpty, !street.isEmpty else { return 1 }
        let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        let minute = Int(
            (local.truncatingRemainder(dividingBy: 86_400) + 86_400).truncatingRemainder(dividingBy: 86_400) / 60)
        return slowdowns.filter {
            $0.street.caseInsensitiveCompare(street) == .orderedSame && $0.covers(minuteOfDay: minute)
        }
        .map(\.factor).min() ?? 1
    }

    /// `Street name[@HH:MM-HH:MM][xFACTOR]`: all day without a window, a third of the speed without a factor.
    public static func parse(_ text: String) throws -> Slowdown {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var factor = 0.35
        if let x = rest.lastIndex(of: "x"), let value = Double(rest[rest.index(after: x)...]) {
            guard value > 0, value <= 1 else { throw SimulationError("the factor of \(text) must be in (0, 1]") }
            factor = value
            rest = rest[..<x]
        }
        var from: Int?
        var to: Int?
        if let at = rest.lastIndex(of: "@") {
            let window = rest[rest.index(after: at)...].split(separator: "-")
            guard window.count == 2, let start = minute(window[0]), let end = minute(window[1]) else {
                throw SimulationError("the window of \(text) must read @HH:MM-HH:MM")
            }
            (from, to) = (start, end)
            rest = rest[..<at]
        }
        let street = rest.trimmingCharacters(in: .whitespaces)
        guard !street.isEmpty else { throw SimulationError("\(text) names no street") }
        return Slowdown(street: street, fromMinute: from, toMinute: to, factor: factor)
    }

    private static func minute(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]), (0...24).contains(hours),
            (0..<60).contains(minutes)
        else { return nil }
        return min(24 * 60, hours * 60 + minutes)
    }
}

/// The street under each stretch of a route, by distance along it, from the route's steps.
public struct StreetsAlong: Sendable {
    private var ends: [(endM: Double, name: String)] = []

    public init(_ route: Route?) {
        var travelled = 0.0
        for step in route?.legs.flatMap(\.steps) ?? [] {
            travelled += step.distanceM
            ends.append((travelled, step.name))
        }
    }

    public func street(atMetre metre: Double) -> String {
        ends.first { metre < $0.endM }?.name ?? ends.last?.name ?? ""
    }
}
