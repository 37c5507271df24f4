import ArgumentParser
import Foundation
import LogisticsCore
import RoadRouting

/// `logistics-bench dispatch`: travel matrices (Monaco and the generated grid) and automatic dispatch's time from
/// an order becoming ready to its offer, with many riders online.
struct DispatchBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dispatch",
        abstract: "Travel-matrix times (Monaco, generated grid) and automatic dispatch's ready-to-offer latency.")

    @Option(help: "The OpenStreetMap extract.") var map: String = "Maps/monaco.osm.pbf"
    @Option(help: "Positions a side for the map's matrix.") var matrixSize: Int = 200
    @Option(help: "Timed runs of each matrix.") var matrixRuns: Int = 20
    @Option(help: "Side of the generated grid (side² nodes); 0 skips it.") var gridSide: Int = 1000
    @Option(help: "Positions a side for the grid's matrix.") var gridMatrixSize: Int = 1000
    @Option(help: "Online riders for automatic dispatch; 0 skips it.") var riders: Int = 1000
    @Option(help: "Orders made ready one after another.") var orders: Int = 200
    @Option(help: "Simulated hours of orders in Monaco, with automatic dispatch and by hand; 0 skips it.")
    var dayHours: Double = 2
    @Option(help: "Riders in the simulated hours.") var dayRiders: Int = 12
    @Option(help: "Orders an hour in the simulated hours.") var ordersPerHour: Double = 60

    func validate() throws {
        guard (2...2000).contains(matrixSize), (2...5000).contains(gridMatrixSize) else {
            throw ValidationError("--matrix-size must be 2...2000 and --grid-matrix-size 2...5000")
        }
        guard gridSide == 0 || (10...2000).contains(gridSide) else {
            throw ValidationError("--grid-side must be 0 or 10...2000")
        }
        guard (1...1000).contains(matrixRuns) else { throw ValidationError("--matrix-runs must be 1...1000") }
        guard (0...100_000).contains(riders), (1...10_000).contains(orders), riders == 0 || orders <= riders else {
            throw ValidationError("--riders must be 0...100000 and --orders 1...10000, at most one per rider")
        }
    }

    func run() async throws {
        Console.line(
            "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, "
                + "\(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB")
        Console.line("== travel matrix on \(map) (motorcycle profile)")
        let roadMap: RoadMap
        do {
            roadMap = try RoadMapLoader.load(path: map, profile: .motorcycle, cacheDirectory: nil)
        } catch {
            throw Console.failure("cannot load \(map): \(error)")
        }
        MatrixTiming.measure(roadMap, label: "Monaco", size: matrixSize, runs: matrixRuns, seed: 1)
        if gridSide > 0 { MatrixTiming.measureGrid(side: gridSide, size: gridMatrixSize, runs: 3) }
        if riders > 0 {
            try await AutoDispatchLatency.measure(map: map, roadMap: roadMap, riders: riders, orders: orders)
        }
        if dayHours > 0 {
            try await DayReport.compare(map: map, riders: dayRiders, hours: dayHours, rate: ordersPerHour)
        }
    }
}
