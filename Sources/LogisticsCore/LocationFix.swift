import Foundation

/// One GPS fix from a rider's phone.
public struct LocationFix: Codable, Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public var accuracyM: Double?
    public var speedMps: Double?
    public var headingDeg: Double?
    public var recordedAt: Date

    public init(
        lat: Double, lon: Double, accuracyM: Double? = nil, speedMps: Double? = nil, headingDeg: Double? = nil,
        recordedAt: Date
    ) {
        self.lat = lat
        self.lon = lon
        self.accuracyM = accuracyM
        self.speedMps = speedMps
        self.headingDeg = headingDeg
        self.recordedAt = recordedAt
    }

    public var point: GeoPoint { GeoPoint(lat: lat, lon: lon, accuracyM: accuracyM) }

    public static let maximumBatch = 500
    /// Phones queue fixes while offline; older than this they no longer say where the rider is.
    public static let maximumAgeSeconds: TimeInterval = 24 * 3600

    /// Why a fix cannot be used, or nil when it can. A bad fix is dropped alone, not with its batch.
    public func rejection(now: Date) -> String? {
        if let problem = point.validationErrors(field: "fix").first { return "\(problem.field) \(problem.message)" }
        if let speedMps, !speedMps.isFinite || speedMps < 0 || speedMps > 100 { return "speedMps must be 0...100" }
        if let headingDeg, !headingDeg.isFinite || headingDeg < 0 || headingDeg >= 360 {
            return "headingDeg must be in [0, 360)"
        }
        if recordedAt.timeIntervalSince(now) > DeliveryRules.futureToleranceSeconds {
            return "recordedAt is in the future"
        }
        if now.timeIntervalSince(recordedAt) > Self.maximumAgeSeconds { return "recordedAt is older than 24 hours" }
        return nil
    }
}
