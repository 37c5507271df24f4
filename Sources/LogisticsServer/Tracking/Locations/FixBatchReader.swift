import Foundation
import LogisticsCore

/// A rider's batch of fixes, `{"type":"locations","ref":"…","fixes":[{"lat":…,"lon":…,"recordedAt":"…"}]}` on
/// the socket or `{"fixes":[…]}` over HTTP, read straight off its bytes. `JSONDecoder` was a large share of the
/// server's CPU under load (a generic container and a boxed value per field, a closure per date).
///
/// Only the plain shape phones send is read here. An escape in a string, a byte outside ASCII, a number with an
/// exponent, an unknown or repeated key, a wrong type or anything that is not JSON makes it answer nil, and the
/// caller decodes with `JSONDecoder`, which also words the error. So whatever this reads, `JSONDecoder` reads to
/// the same values (`FixBatchReaderTests` compares the two on generated messages).
struct FixBatchReader {
    struct Batch: Equatable {
        var type: String?
        var ref: String?
        var fixes: [LocationFix]?
    }

    static func read(_ text: String) -> Batch? {
        var text = text
        return text.withUTF8 { read(UnsafeRawBufferPointer($0)) }
    }

    static func read(_ bytes: UnsafeRawBufferPointer) -> Batch? {
        var reader = JSONByteReader(bytes)
        guard let batch = batch(&reader), reader.isAtEnd() else { return nil }
        return batch
    }

    private static func batch(_ reader: inout JSONByteReader) -> Batch? {
        var batch = Batch()
        var seen = JSONByteReader.RepeatedKeys()
        let complete = reader.members { reader, key in
            switch key {
            case "type":
                batch.type = reader.string()
                return seen.first(0) && batch.type != nil
            case "ref":
                guard seen.first(1) else { return false }
                if reader.null() { return true }
                batch.ref = reader.string()
                return batch.ref != nil
            case "fixes":
                batch.fixes = fixes(&reader)
                return seen.first(2) && batch.fixes != nil
            default:
                return false
            }
        }
        return complete ? batch : nil
    }

    private static func fixes(_ reader: inout JSONByteReader) -> [LocationFix]? {
        reader.elements { reader in fix(&reader) }
    }

    private static func fix(_ reader: inout JSONByteReader) -> LocationFix? {
        var fix = LocationFix(lat: .nan, lon: .nan, recordedAt: .distantPast)
        var seen = JSONByteReader.RepeatedKeys()
        let complete = reader.members { reader, key in
            switch key {
            case "lat":
                guard seen.first(0), let lat = reader.number() else { return false }
                fix.lat = lat
            case "lon":
                guard seen.first(1), let lon = reader.number() else { return false }
                fix.lon = lon
            case "recordedAt":
                guard seen.first(2), let date = reader.string().flatMap(RFC3339.date(from:)) else { return false }
                fix.recordedAt = date
            case "accuracyM":
                return seen.first(3) && reader.optionalNumber(&fix.accuracyM)
            case "speedMps":
                return seen.first(4) && reader.optionalNumber(&fix.speedMps)
            case "headingDeg":
                return seen.first(5) && reader.optionalNumber(&fix.headingDeg)
            default:
                return false
            }
            return true
        }
        // lat, lon and recordedAt are required.
        return complete && seen.all(0, 1, 2) ? fix : nil
    }
}
