import ArgumentParser
import Foundation
import Logging
import LogisticsServer
import LogisticsStore

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations and exit.")

    @OptionGroup var options: ServerOptions

    func run() async throws {
        let configuration = try options.resolve()
        let logger = Logger(label: "rider-logistics.migrate")
        let location: StoreFactory.Location =
            if let url = configuration.database.url {
                .postgres(.init(url: url, poolSize: 2))
            } else {
                .sqlite(path: configuration.sqlitePath)
            }
        do {
            let database = try await StoreFactory.open(location, logger: logger)
            let applied: [Int]
            do {
                applied = try await Migrator(database: database, logger: logger).migrate()
            } catch {
                await database.close()
                throw error
            }
            await database.close()
            print(
                applied.isEmpty
                    ? "schema is up to date" : "applied migrations: \(applied.map(String.init).joined(separator: ", "))"
            )
        } catch {
            throw Console.failure("migration failed: \(error)")
        }
    }
}
