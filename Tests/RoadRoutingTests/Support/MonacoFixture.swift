import Foundation
import LogisticsCore
import RoadRouting
import Threads

/// The committed Monaco extract and maps prepared from it once per test process.
enum MonacoFixture {
    static let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let pbfPath = projectRoot.appendingPathComponent("Maps/monaco.osm.pbf").path

    /// Awaited, not `static let` maps: a test that touched such an initialiser held its cooperative thread, blocked
    /// or contracting, until the import ended, and on two cores two such tests stopped the whole run for seconds.
    static var motorcycle: RoadMap { get async { await preparing.motorcycle.value } }
    static var car: RoadMap { get async { await preparing.car.value } }
    /// The car graph without turn restrictions, as plain shortest-path references model it.
    static var carWithoutRestrictions: RoadMap { get async { await preparing.carWithoutRestrictions.value } }

    private static let preparing = (
        motorcycle: prepare(.motorcycle, honourRestrictions: true),
        car: prepare(.car, honourRestrictions: true),
        carWithoutRestrictions: prepare(.car, honourRestrictions: false)
    )

    private static func prepare(_ profile: RoutingProfile.Name, honourRestrictions: Bool) -> Task<RoadMap, Never> {
        Task {
            await OwnThread.run {
                do {
                    return try RoadMapLoader.prepare(
                        pbf: pbfPath, profile: profile, honourRestrictions: honourRestrictions)
                } catch {
                    fatalError("the committed Monaco extract must import: \(error)")
                }
            }
        }
    }
}
