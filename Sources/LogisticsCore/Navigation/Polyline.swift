/// Google's encoded polyline algorithm, at a chosen precision (6 digits is what OSRM and Mapbox use for `polyline6`).
public enum Polyline {
    public static func encode(_ points: [GeoPoint], precision: Int = 6) -> String {
        let factor = Double(power10(precision))
        // Bytes first, one String at the end: appending scalars to a String one by one cost a twentieth of a
        // route request.
        var output: [UInt8] = []
        output.reserveCapacity(points.count * 8)
        var previousLat = 0
        var previousLon = 0
        for point in points {
            let lat = Int((point.lat * factor).rounded())
            let lon = Int((point.lon * factor).rounded())
            append(lat - previousLat, to: &output)
            append(lon - previousLon, to: &output)
            previousLat = lat
            previousLon = lon
        }
        return String(decoding: output, as: UTF8.self)
    }

    public static func decode(_ encoded: String, precision: Int = 6) -> [GeoPoint]? {
        let factor = Double(power10(precision))
        var points: [GeoPoint] = []
        var lat = 0
        var lon = 0
        var bytes = Array(encoded.utf8)[...]
        while !bytes.isEmpty {
            guard let dLat = next(&bytes), let dLon = next(&bytes) else { return nil }
            lat += dLat
            lon += dLon
            points.append(GeoPoint(lat: Double(lat) / factor, lon: Double(lon) / factor))
        }
        return points
    }

    private static func power10(_ exponent: Int) -> Int { (0..<exponent).reduce(1) { value, _ in value * 10 } }

    private static func append(_ value: Int, to output: inout [UInt8]) {
        var remaining = value < 0 ? ~(value << 1) : value << 1
        while remaining >= 0x20 {
            output.append(UInt8((0x20 | (remaining & 0x1F)) + 63))
            remaining >>= 5
        }
        output.append(UInt8(remaining + 63))
    }

    private static func next(_ bytes: inout ArraySlice<UInt8>) -> Int? {
        var result = 0
        var shift = 0
        while let byte = bytes.popFirst() {
            guard byte >= 63 else { return nil }
            let chunk = Int(byte) - 63
            result |= (chunk & 0x1F) << shift
            shift += 5
            if chunk < 0x20 { return (result & 1) != 0 ? ~(result >> 1) : result >> 1 }
            guard shift < 64 else { return nil }
        }
        return nil
    }
}
