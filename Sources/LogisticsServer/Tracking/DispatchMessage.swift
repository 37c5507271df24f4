import Foundation
import LogisticsCore

/// The dispatcher stream's messages, encoded once and sent to every watching dispatcher as they are.
enum DispatchMessage {
    private struct RiderLocation: Encodable {
        var type = "riderLocation"
        var riderId: String
        var lat: Double
        var lon: Double
        var accuracyM: Double?
        var speedMps: Double?
        var headingDeg: Double?
        var recordedAt: Date
    }

    static func riderLocation(riderId: UUID, fix: LocationFix) -> String {
        let message = RiderLocation(
            riderId: riderId.lowercased, lat: fix.lat, lon: fix.lon, accuracyM: fix.accuracyM, speedMps: fix.speedMps,
            headingDeg: fix.headingDeg, recordedAt: fix.recordedAt)
        return (try? String(decoding: APIJSON.encoder.encode(message), as: UTF8.self)) ?? "{}"
    }

    /// The outbox's event document, as webhooks receive it.
    static func event(json: String) -> String { #"{"type":"event","event":"# + json + "}" }
}
