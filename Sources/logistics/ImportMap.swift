import ArgumentParser
import Foundation
import RoadRouting

struct ImportMap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-map",
        abstract:
            "Import an OpenStreetMap .osm.pbf extract into a prepared road graph the server loads in milliseconds.")

    @Argument(help: "The .osm.pbf file.") var file: String
    @Option(help: "Vehicle profile: motorcycle or car.") var profile: RoutingProfile.Name = .motorcycle
    @Option(help: "Where to write the graph (default: <data-dir>/map.graph).") var out: String?
    @Option(name: .customLong("data-dir"), help: "Data directory (LOGISTICS_DATA_DIR).") var dataDirectory: String?

    func run() async throws {
        let directory =
            dataDirectory ?? ProcessInfo.processInfo.environment["LOGISTICS_DATA_DIR"] ?? "./logistics-data"
        let output = out ?? (directory as NSString).appendingPathComponent("map.graph")
        let started = Date()
        var progress = MapImportProgress()
        do {
            let reader = try PBFReader(path: file)
            let (graph, report) = try MapImporter.importGraph(pbf: reader, profile: RoutingProfile(profile)) {
                progress.show($0)
            }
            Console.line(
                "graph: \(report.nodes) nodes, \(report.arcs) arcs from \(report.ways) ways; turn restrictions: "
                    + "\(report.restrictionsApplied) of \(report.restrictions) applied"
                    + (report.viaWayRestrictionsSkipped > 0
                        ? ", \(report.viaWayRestrictionsSkipped) with a via way skipped" : "")
                    + "; coastline: \(graph.coastline.lineCount) lines, \(report.coastlinePoints) points")
            let map = RoadMap.prepare(graph: graph) { progress.show(.contracting(metric: $0, fraction: $1)) }
            try FileManager.default.createDirectory(
                atPath: (output as NSString).deletingLastPathComponent.isEmpty
                    ? "." : (output as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true)
            try RoadMapFile.write(map, to: output)
            let seconds = Date().timeIntervalSince(started)
            Console.line(
                String(
                    format: "wrote %@ (%@ profile, %.1f MiB in memory) in %.1f s", output, profile.rawValue,
                    Double(map.memoryBytes) / 1_048_576, seconds))
        } catch let error as MapImportError {
            throw Console.failure(error.description)
        } catch {
            throw Console.failure("cannot write \(output): \(error.localizedDescription)")
        }
    }
}

extension RoutingProfile.Name: ExpressibleByArgument {}
extension RouteMetric: ExpressibleByArgument {}

/// Prints import progress as whole-percent lines, one per stage step, so a log or a terminal shows it alike.
struct MapImportProgress {
    private var lastLine = ""

    mutating func show(_ stage: MapImporter.Stage) {
        let line = stage.progressLine(step: 10)
        guard line != lastLine else { return }
        lastLine = line
        Console.line(line)
    }
}
