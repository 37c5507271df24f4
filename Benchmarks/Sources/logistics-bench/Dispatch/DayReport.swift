import Foundation

/// The simulated hours four times, by hand, automatically at ready, ahead on the preparation time, and ahead with
/// batching, side by side.
enum DayReport {
    static func compare(map: String, riders: Int, hours: Double, rate: Double) async throws {
        Console.line(
            "== \(hours) simulated hours in Monaco: \(riders) riders, \(Int(rate)) orders an hour, kitchens 6-15 min, "
                + "15 s steps, \(Int(DaySimulation.speedMps * 3.6)) km/h, the same arrivals every way")
        var rows: [(String, DaySimulation.Figures)] = []
        for dispatch in DaySimulation.Dispatch.allCases {
            let figures = try await DaySimulation(
                map: map, riders: riders, hours: hours, ordersPerHour: rate, dispatch: dispatch
            ).run()
            rows.append((dispatch.rawValue, figures))
        }
        func mean(_ values: [Double]) -> String {
            values.isEmpty ? "-" : String(format: "%.1f min", values.reduce(0, +) / Double(values.count) / 60)
        }
        Console.line(
            "  dispatch              orders  delivered  order→delivered  ready→pickup  wait at store  idle share"
                + "  offers/order")
        for (name, figures) in rows {
            Console.line(
                "  "
                    + [
                        name.padding(toLength: 20, withPad: " ", startingAt: 0),
                        String(figures.orders).leftPadded(8), String(figures.delivered).leftPadded(9),
                        mean(figures.placedToDelivered).leftPadded(16), mean(figures.readyToPickup).leftPadded(13),
                        mean(figures.waitAtStore).leftPadded(14),
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
