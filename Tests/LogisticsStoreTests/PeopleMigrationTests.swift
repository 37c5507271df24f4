import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import Testing

@testable import TestSupport

/// Migration 23 on data of the schema before it: riders first met through tokens become people without phones.
@Suite("People from the riders that were there before")
struct PeopleMigrationTests {
    @Test(
        "riders of an older schema become people with their ids and names, without phones; a nameless one gets a name")
    func ridersBecomePeople() async throws {
        let database = try await SQLiteDatabase.open(path: nil, logger: Logger(label: "test"))
        let migrator = Migrator(database: database, logger: Logger(label: "test"))
        try await migrator.migrate(through: 22)
        let (named, nameless) = (UUID(), UUID())
        try await database.query(
            "INSERT INTO riders (id, name, suspended, created_at, updated_at) VALUES (?, 'Ravi Kumar', 1, 5, 6), (?, NULL, 0, 7, 8)",
            [.uuid(named), .uuid(nameless)])
        try await migrator.migrate()
        let repository = SQLLogisticsRepository(database: database, logger: Logger(label: "test"))
        let ravi = try #require(try await repository.person(id: named))
        #expect(ravi.role == .rider && ravi.name == "Ravi Kumar" && ravi.phone == nil && ravi.suspended)
        let other = try #require(try await repository.person(id: nameless))
        #expect(other.name == "Rider \(nameless.lowercased.prefix(8))" && !other.suspended)
        // A phone can be given to them afterwards, and is then theirs alone.
        let phoned = try await repository.changePerson(
            id: nameless, roles: [.rider], PersonChanges(phone: "+37799123123"), now: Date())
        #expect(phoned.phone == "+37799123123")
        await #expect(throws: LogisticsError.self) {
            _ = try await repository.changePerson(
                id: named, roles: [.rider], PersonChanges(phone: "+37799123123"), now: Date())
        }
        await database.close()
    }
}
