extension Array where Element == GeoPoint {
    /// Points every `step` metres along the path (straight between its points), ending at its last point: how
    /// simulated riders and GPS traces move along a route.
    public func sampled(every step: Double) -> [GeoPoint] {
        let step = Swift.max(step, 1)
        var points: [GeoPoint] = []
        var carried = 0.0
        for (from, to) in zip(self, dropFirst()) {
            let length = from.distanceM(to: to)
            var along = carried
            while along < length {
                let fraction = along / length
                points.append(
                    GeoPoint(
                        lat: from.lat + (to.lat - from.lat) * fraction, lon: from.lon + (to.lon - from.lon) * fraction))
                along += step
            }
            carried = along - length
        }
        if let last { points.append(last) }
        return points
    }
}
