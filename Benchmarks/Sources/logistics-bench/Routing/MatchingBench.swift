import ArgumentParser
import Foundation
import LogisticsCore
import RoadFixtures
import RoadRouting

/// `logistics-bench matching`: the HMM map matcher on noisy traces of known routes, its accuracy at each noise level
/// beside the nearest-segment snapping it replaces, and its throughput on one core.
struct MatchingBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "matching",
        abstract: "Map matching accuracy (share of fixes on the segment driven) at 5, 10 and 20 m GPS noise, against "
            + "nearest-segment snapping, and fixes matched per second on one core.")

    @Option(help: "The OpenStreetMap extract to drive on.") var map: String = "Maps/monaco.osm.pbf"
    @Option(help: "Random routes of at least 800 m, one trace each per noise level.") var routes: Int = 100

    func validate() throws {
        guard (1...10_000).contains(routes) else { throw ValidationError("--routes must be 1...10000") }
    }

    func run() async throws {
        Console.line(
            "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB"
        )
        Console.line("Preparing \(map) (motorcycle profile) ...")
        let roadMap: RoadMap
        do {
            roadMap = try RoadMapLoader.prepare(pbf: map, profile: .motorcycle)
        } catch {
            throw Console.failure(error.description)
        }
        let driven = MatchingCheck.routes(roadMap, count: routes, seed: 41)
        Console.line("\(routes) routes, a fix every 3 s at 8 m/s; one core")
        for noise in [5.0, 10, 20] {
            let hmm = MatchingCheck.accuracy(noiseM: noise, map: roadMap, routes: driven, seed: 7)
            let nearest = MatchingCheck.nearestSegmentOnRoadShare(noiseM: noise, map: roadMap, routes: driven, seed: 7)
            Console.line(
                String(
                    format:
                        "noise %2.0f m: %.1f %% of the segments driven matched (mismatch fraction %.3f); fixes on the road driven: HMM %.1f %%, nearest segment %.1f %%; %.0f fixes/s",
                    noise, hmm.segmentShare * 100, hmm.mismatchFraction, hmm.fixOnRoadShare * 100, nearest * 100,
                    Double(hmm.fixes) / max(hmm.matchingSeconds, 1e-9)))
        }
    }
}
