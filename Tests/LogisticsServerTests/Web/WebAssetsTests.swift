import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import LogisticsServer

/// The pages' files are served by their path below the top-level `Web/`, so a folder is part of a file's name.
@Suite("Web assets by path")
struct WebAssetsTests {
    @Test("two files of one name in different folders are two files, each at its own path")
    func sameNameInTwoFolders() async throws {
        let files = WebAssets.assets(embedded: [
            "Rider/app.js": Data("rider();".utf8).base64EncodedString(),
            "Dispatch/app.js": Data("dispatch();".utf8).base64EncodedString(),
            "Rider/page.html": Data("<p>a template</p>".utf8).base64EncodedString(),
        ])
        let router = Router(context: LogisticsRequestContext.self)
        WebAssets.register(on: router, files: files)
        try await Application(router: router).test(.router) { client in
            for (path, body) in [("/web/Rider/app.js", "rider();"), ("/web/Dispatch/app.js", "dispatch();")] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok, "\(path)")
                    #expect(String(buffer: response.body) == body, "\(path)")
                    #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                    #expect(response.headers[.eTag] != nil)
                }
            }
            for path in ["/web/app.js", "/web/Rider/page.html"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .notFound, "\(path)")
                }
            }
        }
    }

    @Test("the embedded assets are keyed by path below Web/: each app's folder, and Shared/ for what they share")
    func embeddedByPath() {
        for path in [
            "Rider/rider.js", "Rider/Connection/rider-api.js", "Dispatch/dispatch.js", "Shared/map.js",
            "Shared/sign-in.js",
        ] {
            #expect(WebAssets.files[path] != nil, "\(path)")
        }
        #expect(WebAssets.files["rider.js"] == nil, "no file is known by its bare name")
    }
}
