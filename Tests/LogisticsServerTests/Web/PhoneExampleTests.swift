import Foundation
import LogisticsServer
import Testing

@testable import TestSupport

/// The sign-in pages show the city's phone as the example (issue 57): a Monaco demo must not show an Indian number,
/// nor a Mumbai deployment a Monaco one.
@Suite("The sign-in's example phone follows the server's setting", .timeLimit(.minutes(1)))
struct PhoneExampleTests {
    @Test("every sign-in (dispatcher, store, rider) shows LOGISTICS_PHONE_EXAMPLE, and no number without it")
    func example() async throws {
        try await TestServer.run(.sqlite, configure: { $0.signIn.phoneExample = "+91 98200 12345" }) { server in
            for page in ["/dispatch", "/vendor", "/rider"] {
                let html = try await server.send(.get, page).text
                #expect(html.contains(#"placeholder="+91 98200 12345""#), "\(page)")
                #expect(!html.contains("+377"), "\(page)")
            }
        }
        try await TestServer.run(.sqlite) { server in
            for page in ["/dispatch", "/vendor", "/rider"] {
                let html = try await server.send(.get, page).text
                #expect(
                    html.contains(
                        #"id="phone" name="phone" type="tel" inputmode="tel" autocomplete="tel" placeholder="""#))
                #expect(!html.contains("+377") && !html.contains("+91"), "\(page)")
            }
        }
    }

    @Test("the rider app's words say how to write a phone with the page's example, never a number of their own")
    func riderWords() async throws {
        try await TestServer.run(.sqlite) { server in
            for language in ["en", "hi", "mr"] {
                let html = try await server.send(.get, "/rider", headers: ["Accept-Language": language]).text
                #expect(html.contains("{example}"), "\(language)")
                #expect(!html.contains("98200") && !html.contains("+91"), "\(language)")
            }
        }
    }

    @Test("a setting that is no phone number stops the server with a reason")
    func refused() throws {
        #expect(throws: (any Error).self) {
            try ServerConfiguration.fromEnvironment(["LOGISTICS_PHONE_EXAMPLE": "call us"])
        }
        let configuration = try ServerConfiguration.fromEnvironment(["LOGISTICS_PHONE_EXAMPLE": "+377 99 12 34 56"])
        #expect(configuration.signIn.phoneExample == "+377 99 12 34 56")
    }
}
