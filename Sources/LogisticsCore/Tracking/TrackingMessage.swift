import Foundation

/// One message of an order's live-tracking stream (CUS-028), as API.md defines them. Every message carries the
/// order's `seq`, which grows by one per message, so a reconnecting client can ask for exactly what it missed.
public enum TrackingMessage: Sendable, Equatable {
    case location(seq: Int, position: TrackedPosition)
    case status(seq: Int, status: OrderStatus, occurredAt: Date)
    case stale(seq: Int, lastFixAt: Date?)
    case ended(seq: Int, status: OrderStatus)

    public var seq: Int {
        switch self {
        case .location(let seq, _), .status(let seq, _, _), .stale(let seq, _), .ended(let seq, _): seq
        }
    }
}

/// A rider position as the customer sees it.
public struct TrackedPosition: Codable, Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public var accuracyM: Double?
    public var recordedAt: Date
    /// Where the rider's phone says they head (degrees clockwise from north): the customer's map turns the rider's
    /// marker with it. Not kept in the database, so a position read back from there has none.
    public var headingDeg: Double?

    public init(lat: Double, lon: Double, accuracyM: Double?, recordedAt: Date, headingDeg: Double? = nil) {
        self.lat = lat
        self.lon = lon
        self.accuracyM = accuracyM
        self.recordedAt = recordedAt
        self.headingDeg = headingDeg
    }

    public var point: GeoPoint { GeoPoint(lat: lat, lon: lon, accuracyM: accuracyM) }

    /// Good enough to show a customer: accuracy of 100 m or better (or not reported).
    public var isShowable: Bool { (accuracyM ?? 0) <= TrackingChannel.worstShownAccuracyM }
}

extension LocationFix {
    /// The fix as live tracking shows it.
    public var trackedPosition: TrackedPosition {
        TrackedPosition(lat: lat, lon: lon, accuracyM: accuracyM, recordedAt: recordedAt, headingDeg: headingDeg)
    }
}

extension TrackingMessage: Encodable {
    private enum Keys: String, CodingKey {
        case type, seq, lat, lon, accuracyM, headingDeg, recordedAt, status, occurredAt, lastFixAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(seq, forKey: .seq)
        switch self {
        case .location(_, let position):
            try container.encode("location", forKey: .type)
            try container.encode(position.lat, forKey: .lat)
            try container.encode(position.lon, forKey: .lon)
            try container.encodeIfPresent(position.accuracyM, forKey: .accuracyM)
            try container.encodeIfPresent(position.headingDeg, forKey: .headingDeg)
            try container.encode(position.recordedAt, forKey: .recordedAt)
        case .status(_, let status, let occurredAt):
            try container.encode("status", forKey: .type)
            try container.encode(status, forKey: .status)
            try container.encode(occurredAt, forKey: .occurredAt)
        case .stale(_, let lastFixAt):
            try container.encode("stale", forKey: .type)
            try container.encodeIfPresent(lastFixAt, forKey: .lastFixAt)
        case .ended(_, let status):
            try container.encode("ended", forKey: .type)
            try container.encode(status, forKey: .status)
        }
    }
}

extension TrackingMessage {
    /// The message as JSON text, written by hand: the hub sends one per rider fix to every follower, and this is
    /// several times cheaper than a `JSONEncoder` round. Same fields as the `Encodable` form.
    public var jsonText: String {
        switch self {
        case .location(let seq, let position):
            let accuracy = position.accuracyM.map { #","accuracyM":\#($0)"# } ?? ""
            let heading = position.headingDeg.map { #","headingDeg":\#($0)"# } ?? ""
            return #"{"type":"location","seq":\#(seq),"lat":\#(position.lat),"lon":\#(position.lon)\#(accuracy)"#
                + #"\#(heading),"#
                + #""recordedAt":"\#(RFC3339.string(from: position.recordedAt))"}"#
        case .status(let seq, let status, let occurredAt):
            return #"{"type":"status","seq":\#(seq),"status":"\#(status.rawValue)","#
                + #""occurredAt":"\#(RFC3339.string(from: occurredAt))"}"#
        case .stale(let seq, let lastFixAt):
            let last = lastFixAt.map { #","lastFixAt":"\#(RFC3339.string(from: $0))""# } ?? ""
            return #"{"type":"stale","seq":\#(seq)\#(last)}"#
        case .ended(let seq, let status):
            return #"{"type":"ended","seq":\#(seq),"status":"\#(status.rawValue)"}"#
        }
    }
}
