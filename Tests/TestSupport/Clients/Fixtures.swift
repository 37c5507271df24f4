import Foundation

/// Request bodies shaped like a real vendor's.
enum Fixtures {
    /// A webhook subscription's shared secret (16-256 characters, as the API asks).
    static let webhookSecret = "whsec-0123456789abcdef-test"

    static func order(customerId: UUID = UUID(), podType: String = "PHOTO", lat: Double = 43.7347) -> [String: Any] {
        [
            "externalRef": "EXT-\(Int.random(in: 1000...9999))",
            "vendor": [
                "name": "Café de Paris", "address": "Place du Casino",
                "location": ["lat": 43.7396, "lon": 7.4276],
            ],
            "customer": [
                "id": customerId.uuidString.lowercased(), "name": "Priya Shah", "phone": "+377 93 15 00 01",
                "address": "Quai Antoine 1er", "location": ["lat": lat, "lon": 7.4240],
            ],
            "podType": podType,
            "notes": "Ring twice",
        ]
    }
}
