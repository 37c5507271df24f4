import Foundation
import LogisticsCore
import Testing

@Suite("Geodesy")
struct GeoPointTests {
    @Test("haversine distance matches a surveyed one")
    func distance() {
        // Place du Casino to Port Hercule, Monaco: about 620 m as the crow flies.
        let casino = GeoPoint(lat: 43.7396, lon: 7.4276)
        let port = GeoPoint(lat: 43.7347, lon: 7.4240)
        #expect(abs(casino.distanceM(to: port) - 617) < 10)
        // Paris (Notre-Dame) to London (Trafalgar Square): 343.9 km great-circle.
        let paris = GeoPoint(lat: 48.8530, lon: 2.3499)
        let london = GeoPoint(lat: 51.5080, lon: -0.1281)
        #expect(abs(paris.distanceM(to: london) - 343_900) < 1_500)
        #expect(casino.distanceM(to: casino) == 0)
    }

    @Test(
        "out-of-range and non-finite coordinates are named field by field",
        arguments: [
            (GeoPoint(lat: 90.0001, lon: 0), ["p.lat"]),
            (GeoPoint(lat: 0, lon: -180.5), ["p.lon"]),
            (GeoPoint(lat: .nan, lon: .infinity), ["p.lat", "p.lon"]),
            (GeoPoint(lat: 1, lon: 1, accuracyM: -1), ["p.accuracyM"]),
            (GeoPoint(lat: -90, lon: 180, accuracyM: 0), []),
        ])
    func validation(point: GeoPoint, fields: [String]) {
        #expect(point.validationErrors(field: "p").map(\.field) == fields)
    }
}

@Suite("Times")
struct TimeTests {
    @Test("RFC 3339 with milliseconds round-trips to the same stored millisecond")
    func roundTrip() {
        for _ in 0..<2000 {
            let date = Date(timeIntervalSince1970: Double.random(in: 1_700_000_000...1_900_000_000))
            let text = RFC3339.string(from: date)
            #expect(text.hasSuffix("Z") && text.count == 24)
            let parsed = RFC3339.date(from: text)!
            #expect(parsed.epochMillis == date.epochMillis)
            #expect(Date(epochMillis: date.epochMillis).epochMillis == date.epochMillis)
        }
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
    }
}
