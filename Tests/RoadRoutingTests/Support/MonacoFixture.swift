import Foundation
import RoadRouting

/// The committed Monaco extract and maps prepared from it once per test process.
enum MonacoFixture {
    static let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let pbfPath = projectRoot.appendingPathComponent("Maps/monaco.osm.pbf").path

    static let motorcycle: RoadMap = prepare(.motorcycle, honourRestrictions: true)
    static let car: RoadMap = prepare(.car, honourRestrictions: true)
    /// The car graph without turn restrictions, as plain shortest-path references model it.
    static let carWithoutRestrictions: RoadMap = prepare(.car, honourRestrictions: false)

    private static func prepare(_ profile: RoutingProfile.Name, honourRestrictions: Bool) -> RoadMap {
        do {
            return try RoadMapLoader.prepare(pbf: pbfPath, profile: profile, honourRestrictions: honourRestrictions)
        } catch {
            fatalError("the committed Monaco extract must import: \(error)")
        }
    }
}
