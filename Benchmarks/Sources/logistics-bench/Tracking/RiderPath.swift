import Foundation
import LogisticsCore

/// Where the load generator's riders go: up a street and back, each rider a little apart. How far they move between
/// fixes decides how many fixes the server keeps in its history (one per 10 s or 25 m, `RiderTrail`), so it sets
/// the database's share of the work.
struct RiderPath: Sendable {
    var metresPerFix: Double
    /// What a fix says the rider's speed is.
    var speedMps: Double

    static let metresPerDegreeOfLatitude = 111_320.0

    init(metresPerFix: Double, interval: Double) {
        self.metresPerFix = metresPerFix
        speedMps = metresPerFix / interval
    }

    /// Where rider `rider` is at its `step`-th fix. The street is 200 fixes long, so a run's fixes of one rider
    /// differ from each other: a customer's last message tells which fix it was. The last fix jumps 111 m: customers
    /// are shown a position every 5 s or 25 m (`TrackingChannel`), and the last one must reach them for the check
    /// that nothing was lost.
    func latitude(rider: Int, step: Int, last: Bool = false) -> Double {
        43.7300 + Double(step % 200) * metresPerFix / Self.metresPerDegreeOfLatitude + Double(rider % 7) * 0.00001
            + (last ? 0.001 : 0)
    }

    /// One fix at `lat`, recorded now, as both the HTTP body and the socket message carry it.
    func fixJSON(lat: Double) -> String {
        #"{"lat":\#(lat),"lon":7.4262,"accuracyM":5,"speedMps":\#(speedMps),"headingDeg":0,"recordedAt":"\#(RFC3339.string(from: Date()))"}"#
    }
}
