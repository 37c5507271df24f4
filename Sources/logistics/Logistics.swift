import ArgumentParser

@main
struct Logistics: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logistics",
        abstract: "Rider Logistics: a last-mile delivery backend.",
        subcommands: [
            Serve.self, Migrate.self, Token.self, ImportMap.self, RouteCommand.self, Demo.self, Simulate.self,
            Follow.self,
        ]
    )
}
