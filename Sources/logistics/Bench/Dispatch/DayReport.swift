import Foundation

/// The simulated hours twice, by hand and automatically, side by side.
enum DayReport {
    static func compare(map: String, riders: Int, hours: Double, rate: Double) async throws {
        Console.line(
            "== \(hours) simulated hours in Monaco: \(riders) riders, \(Int(rate)) orders an hour, 15 s steps, "
                + "\(Int(DaySimulation.speedMps * 3.6)) km/h, the same arrivals both ways")
        var rows: [(String, DaySimulation.Figures)] = []
        for automatic in [false, true] {
            let figures = try await DaySimulation(
                map: map, riders: riders, hours: hours, ordersPerHour: rate, automatic: automatic
            ).run()
            rows.append((automatic ? "automatic" : "by hand (3 nearest)", figures))
        }
        func mean(_ values: [Double]) -> String {
            values.isEmpty ? "-" : String(format: "%.1f min", values.reduce(0, +) / Double(values.count) / 60)
        }
        Console.line(
            "  dispatch              orders  delivered  ready→pickup  ready→delivered  idle share  offers/order")
        for (name, figures) in rows {
            Console.line(
                "  "
                    + [
                        name.padding(toLength: 20, withPad: " ", startingAt: 0),
                        String(figures.orders).leftPadded(8), String(figures.delivered).leftPadded(9),
                        mean(figures.readyToPickup).leftPadded(13), mean(figures.readyToDelivered).leftPadded(16),
                        String(format: "%.0f %%", 100 * Double(figures.idleSteps) / Double(max(1, figures.riderSteps)))
                            .leftPadded(11),
                        String(format: "%.2f", Double(figures.offers) / Double(max(1, figures.orders))).leftPadded(13),
                    ].joined(separator: " "))
        }
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
