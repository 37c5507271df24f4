import Foundation
import LogisticsCore

/// Where the rider is on the route, as the navigation screen shows it.
public struct NavigationProgress: Sendable, Equatable {
    /// The position matched onto the route.
    public var snapped: GeoPoint
    public var remainingDistanceM: Double
    public var remainingDurationS: Double
    public var eta: Date
    public var stepIndex: Int
    public var currentInstruction: String
    public var nextInstruction: String?
    /// How far the last fix was from the route.
    public var offRouteM: Double
}

/// What the app shows or says after a fix or a clock tick.
public enum NavigationEvent: Sendable, Equatable {
    case progress(NavigationProgress)
    /// Speak this (each announcement of a route exactly once, in order).
    case announce(String)
    /// Several good fixes in a row away from the route: a new route is being fetched.
    case offRoute
    case rerouted(Route)
    /// A new route could not be fetched; the old one stays, and the next deviation tries again.
    case rerouteFailed(String)
    /// No fix for `gpsTimeout`: show "Searching for GPS signal".
    case searchingForGPS
    /// A good fix after searching: navigation carries on by itself.
    case gpsRestored
    case arrived
}

/// Turn-by-turn guidance along a route from the server: matches fixes onto it, reports progress and ETA,
/// speaks each voice instruction once at its distance, re-routes after a real deviation, notices a lost GPS
/// signal and recovers from it, and can be left and resumed without losing the task.
public actor NavigationSession {
    public static let searchingForGPSMessage = "Searching for GPS signal"
    /// An announcement whose spot is farther behind than this is skipped rather than spoken late.
    static let staleAnnouncementM = 60.0
    /// No rider on a city delivery goes faster than this, which bounds how far ahead a fix may match.
    static let fastestMps = 40.0
    /// How far along the route the first fix may match.
    static let firstMatchM = 300.0

    /// Off by more than this (plus the fix's own uncertainty beyond 10 m) counts as off the route.
    public var deviationThresholdM = RiderAppRules.offRouteDistanceM
    /// This many good fixes in a row off the route trigger a re-route.
    public var deviationFixes = RiderAppRules.offRouteFixes
    /// Fixes less accurate than this neither confirm nor clear a deviation.
    public var goodAccuracyM = 30.0
    public var gpsTimeout: TimeInterval = RiderAppRules.gpsLostAfterSeconds
    public var arrivalRadiusM = 30.0

    private let destination: GeoPoint
    private let reroute: @Sendable (_ from: GeoPoint, _ headingDeg: Double?) async throws -> Route
    private var route: Route
    private var line: RouteLine
    private var announcements: [(alongM: Double, text: String)] = []
    private var nextAnnouncement = 0
    /// Where the last fix on the route was, and when: the next match is searched from there.
    private var lastAlongM = 0.0
    private var lastMatchedAt: Date?
    private var offRouteCount = 0
    private var lastFixAt: Date?
    private var searching = false
    private var exited = false
    private var arrived = false
    public private(set) var reroutes = 0

    public init(
        route: Route, destination: GeoPoint,
        reroute: @escaping @Sendable (_ from: GeoPoint, _ headingDeg: Double?) async throws -> Route
    ) {
        self.route = route
        self.destination = destination
        self.reroute = reroute
        self.line = RouteLine(Polyline.decode(route.geometry) ?? [])
        self.announcements = Self.announcements(of: route, on: line)
    }

    public var currentRoute: Route { route }

    /// Feeds one GPS fix; returns what to show and say.
    public func update(_ fix: LocationFix) async -> [NavigationEvent] {
        guard !exited, !arrived else { return [] }
        var events: [NavigationEvent] = []
        lastFixAt = fix.recordedAt
        let accuracy = fix.accuracyM ?? 10
        let good = accuracy <= goodAccuracyM
        if searching {
            guard good else { return [] }
            searching = false
            events.append(.gpsRestored)
        }
        // Not farther than a fast rider could have gone since the last matched fix (a tunnel allows more).
        let elapsed = lastMatchedAt.map { max(0, fix.recordedAt.timeIntervalSince($0)) } ?? 0
        // The route starts where the rider was when it was asked for: the first fix is matched near its start (matched
        // anywhere, a route looping back past its start put the rider at its end).
        let reach = lastMatchedAt == nil ? Self.firstMatchM : 100 + Self.fastestMps * elapsed
        guard let match = line.match(fix.point, fromAlongM: lastAlongM - 50, toAlongM: lastAlongM + reach) else {
            return events
        }

        let threshold = deviationThresholdM + max(0, min(accuracy, goodAccuracyM) - 10)
        if good {
            offRouteCount = match.offsetM > threshold ? offRouteCount + 1 : 0
        }
        if offRouteCount >= deviationFixes {
            offRouteCount = 0
            events.append(.offRoute)
            do {
                let fresh = try await reroute(fix.point, fix.headingDeg)
                adopt(fresh)
                reroutes += 1
                events.append(.rerouted(fresh))
                if let rematched = line.match(fix.point, toAlongM: 200) {
                    remember(rematched, at: fix.recordedAt)
                    events += advance(to: rematched, at: fix.recordedAt)
                }
            } catch {
                events.append(.rerouteFailed("\(error)"))
            }
            return events
        }
        if match.offsetM <= threshold { remember(match, at: fix.recordedAt) }
        return events + advance(to: match, at: fix.recordedAt)
    }

    private func remember(_ match: RouteLine.Match, at time: Date) {
        lastAlongM = match.alongM
        lastMatchedAt = time
    }

    /// Call every second or so: after `gpsTimeout` without a fix the app shows "Searching for GPS signal".
    public func checkSignal(now: Date) -> [NavigationEvent] {
        guard !exited, !arrived, !searching, let lastFixAt, now.timeIntervalSince(lastFixAt) >= gpsTimeout else {
            return []
        }
        searching = true
        return [.searchingForGPS]
    }

    /// The rider left navigation (the task stays); updates are ignored until `resume`.
    public func exit() { exited = true }

    /// Back to navigation: with a new route when the rider moved meanwhile, or the same one. Announcements
    /// already spoken are not repeated.
    public func resume(with fresh: Route? = nil) {
        exited = false
        searching = false
        offRouteCount = 0
        if let fresh { adopt(fresh) }
    }

    private func adopt(_ fresh: Route) {
        route = fresh
        line = RouteLine(Polyline.decode(fresh.geometry) ?? [])
        announcements = Self.announcements(of: fresh, on: line)
        nextAnnouncement = 0
        lastAlongM = 0
        lastMatchedAt = nil
    }

    private func advance(to match: RouteLine.Match, at time: Date) -> [NavigationEvent] {
        var events: [NavigationEvent] = []
        // Everything passed since the last fix is spoken in order, except what lies far behind (after a GPS gap
        // or a jump): announcing a turn already taken is noise.
        while nextAnnouncement < announcements.count, announcements[nextAnnouncement].alongM <= match.alongM + 1 {
            if announcements[nextAnnouncement].alongM >= match.alongM - Self.staleAnnouncementM {
                events.append(.announce(announcements[nextAnnouncement].text))
            }
            nextAnnouncement += 1
        }

        let steps = route.legs.flatMap(\.steps)
        let stepIndex =
            steps.lastIndex { step in
                step.geometryStart < line.along.count && line.along[step.geometryStart] <= match.alongM + 0.5
            } ?? 0
        let remaining = max(0, line.length - match.alongM)
        let remainingDuration = Self.remainingDuration(steps, stepIndex, match.alongM, line)
        events.append(
            .progress(
                NavigationProgress(
                    snapped: match.point, remainingDistanceM: remaining, remainingDurationS: remainingDuration,
                    eta: time.addingTimeInterval(remainingDuration), stepIndex: stepIndex,
                    currentInstruction: steps.isEmpty ? "" : steps[stepIndex].instruction,
                    nextInstruction: stepIndex + 1 < steps.count ? steps[stepIndex + 1].instruction : nil,
                    offRouteM: match.offsetM)))
        // Arrival is the end of the route, measured along it: a loop can pass within metres of the door long before.
        if remaining <= arrivalRadiusM {
            arrived = true
            // The arrival announcement sits at the very end; say it now rather than never.
            while nextAnnouncement < announcements.count {
                if announcements[nextAnnouncement].alongM >= match.alongM - Self.staleAnnouncementM {
                    events.insert(.announce(announcements[nextAnnouncement].text), at: events.count - 1)
                }
                nextAnnouncement += 1
            }
            events.append(.arrived)
        }
        return events
    }

    /// The rest of the current step by the fraction left of it, plus every later step.
    private static func remainingDuration(_ steps: [RouteStep], _ index: Int, _ alongM: Double, _ line: RouteLine)
        -> Double
    {
        guard index < steps.count else { return 0 }
        let step = steps[index]
        let start = line.along[min(step.geometryStart, line.along.count - 1)]
        let end = line.along[min(step.geometryEnd, line.along.count - 1)]
        let fractionLeft = end > start ? max(0, min(1, (end - alongM) / (end - start))) : 0
        return step.durationS * fractionLeft + steps.dropFirst(index + 1).reduce(0) { $0 + $1.durationS }
    }

    /// Every voice instruction of the route at its distance from the start, in order.
    private static func announcements(of route: Route, on line: RouteLine) -> [(alongM: Double, text: String)] {
        guard !line.along.isEmpty else { return [] }
        var result: [(alongM: Double, text: String)] = []
        for step in route.legs.flatMap(\.steps) {
            let start = line.along[min(step.geometryStart, line.along.count - 1)]
            let end = line.along[min(step.geometryEnd, line.along.count - 1)]
            for voice in step.voiceInstructions {
                result.append((min(start + voice.distanceAlongStepM, max(end, start)), voice.announcement))
            }
        }
        // Stable: two announcements at one spot keep the narrator's order.
        return result.enumerated().sorted { ($0.element.alongM, $0.offset) < ($1.element.alongM, $1.offset) }.map(
            \.element)
    }
}
