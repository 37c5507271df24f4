import LogisticsCore

/// Street addresses around Monaco for simulated stores and customers: all on the road network of the committed
/// extract, so routes between them are real ones.
public enum MonacoPlaces {
    public static let all: [(name: String, location: GeoPoint)] = [
        ("Place du Casino", GeoPoint(lat: 43.7396, lon: 7.4276)),
        ("Quai Antoine Ier", GeoPoint(lat: 43.7340, lon: 7.4225)),
        ("Place du Palais", GeoPoint(lat: 43.7311, lon: 7.4200)),
        ("Fontvieille, rue du Gabian", GeoPoint(lat: 43.7283, lon: 7.4150)),
        ("Avenue Princesse Grace", GeoPoint(lat: 43.7445, lon: 7.4318)),
        ("Boulevard de Belgique", GeoPoint(lat: 43.7330, lon: 7.4135)),
        ("Place Sainte-Dévote", GeoPoint(lat: 43.7378, lon: 7.4208)),
        ("Marché de la Condamine", GeoPoint(lat: 43.7355, lon: 7.4213)),
        ("Boulevard des Moulins", GeoPoint(lat: 43.7425, lon: 7.4290)),
        ("Avenue de la Costa", GeoPoint(lat: 43.7410, lon: 7.4245)),
        ("Stade Louis II", GeoPoint(lat: 43.7276, lon: 7.4156)),
        ("Boulevard d'Italie", GeoPoint(lat: 43.7478, lon: 7.4357)),
    ]

    public typealias Place = (name: String, location: GeoPoint)

    /// Short trips keep the demo lively: a newcomer sees deliveries finish within the first minute or two.
    public static let shortTripM = 900.0

    /// A store at the place nearest `position` (not the one just delivered to) and a customer within
    /// `shortTripM` of it.
    public static func shortTrip(near position: GeoPoint, after lastHome: GeoPoint? = nil) -> (
        store: Place, home: Place
    ) {
        var random = SystemRandomNumberGenerator()
        return shortTrip(near: position, after: lastHome, using: &random)
    }

    public static func shortTrip(
        near position: GeoPoint, after lastHome: GeoPoint? = nil, using random: inout some RandomNumberGenerator
    ) -> (store: Place, home: Place) {
        let stores = all.filter { place in lastHome.map { place.location.distanceM(to: $0) > 50 } ?? true }
        let store = stores.min { $0.location.distanceM(to: position) < $1.location.distanceM(to: position) }!
        let homes = all.filter {
            let distance = $0.location.distanceM(to: store.location)
            return distance > 200 && distance <= shortTripM
        }
        return (store, homes.randomElement(using: &random) ?? all.first { $0.name != store.name }!)
    }
}
