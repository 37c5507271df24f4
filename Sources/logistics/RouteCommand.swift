import ArgumentParser
import Foundation
import LogisticsCore
import RoadRouting

struct RouteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route", abstract: "Print a route with its turn-by-turn steps, straight from a map file.")

    @Option(help: "A prepared .graph file or an .osm.pbf extract.") var map: String = "Maps/monaco.osm.pbf"
    @Option(help: "Start as lat,lon.") var from: String
    @Option(help: "Destination as lat,lon.") var to: String
    @Option(help: "Vehicle profile for a .pbf map: motorcycle or car.") var profile: RoutingProfile.Name = .motorcycle
    @Option(help: "time (fastest) or distance (shortest).") var optimize: RouteMetric = .time
    @Flag(help: "Print the route as JSON.") var json = false

    func run() async throws {
        guard let start = GeoPoint(commaSeparated: from), let end = GeoPoint(commaSeparated: to),
            start.validationErrors(field: "from").isEmpty, end.validationErrors(field: "to").isEmpty
        else {
            throw Console.failure("--from and --to must be lat,lon with finite numbers in range")
        }
        do {
            var progress = MapImportProgress()
            let roadMap = try RoadMapLoader.load(path: map, profile: profile, cacheDirectory: nil) { event in
                if case .importing(let stage) = event { progress.show(stage) }
            }
            let route = try RoutePlanner(map: roadMap).route(
                RouteRequest(from: start, to: end, metric: optimize), now: Date())
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                Console.line(String(decoding: try encoder.encode(route), as: UTF8.self))
                return
            }
            Console.line(String(format: "%.0f m, %.0f s", route.distanceM, route.durationS))
            for step in route.legs.flatMap(\.steps) {
                Console.line(
                    String(
                        format: "%7.0f m  %-12@ %@", step.distanceM, step.maneuver.type as NSString, step.instruction))
            }
        } catch let error as MapImportError {
            throw Console.failure(error.description)
        } catch let error as RoutingError {
            throw Console.failure("no route: \(error)")
        }
    }
}
