import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// The rider app as HTTP sees it: the page, its files, the manifest and the service worker (Tests/Browser drives it
/// in chromium).
@Suite("The rider app page", .timeLimit(.minutes(3)))
struct RiderPageTests {
    /// The `data-…` JSON the server fills into the page, decoded from its HTML attribute.
    static func attribute(_ name: String, in html: String) throws -> [String: Any] {
        let start = try #require(html.range(of: "\(name)=\""))
        let end = try #require(html[start.upperBound...].firstIndex(of: "\""))
        let escaped = String(html[start.upperBound..<end])
        let text = escaped.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Every `/web/…` file a text names, and every module a script at `path` imports by a relative address.
    static func assetPaths(in text: String, at path: String = "/") -> [String] {
        let words = text.split(whereSeparator: { "\"'() ,".contains($0) }).map(String.init)
        let folder = URL(string: "http://page" + path)!
        let imports = words.filter { ($0.hasPrefix("./") || $0.hasPrefix("../")) && $0.hasSuffix(".js") }
            .compactMap { URL(string: $0, relativeTo: folder)?.path }
        return words.filter { $0.hasPrefix("/web/") } + imports
    }

    @Test("GET /rider: an HTML page of our own files, its words by language, the numbers RiderKit uses, no demo switch")
    func page() async throws {
        try await TestServer.run(.sqlite) { server in
            let page = try await server.send(.get, "/rider")
            #expect(page.status == 200)
            #expect(page.contentType == "text/html; charset=utf-8")
            #expect(page.headers[.cacheControl] == "no-store")
            TrackingPageTests.expectSecured(page, "page")
            #expect(!page.text.contains("<script>"), "no inline script")
            #expect(!page.text.contains("{{"), "every placeholder filled")
            #expect(!page.text.contains("http://") && !page.text.contains("https://"), "nothing from elsewhere")
            #expect(page.text.contains(#"<link rel="manifest""#))

            let settings = try Self.attribute("data-config", in: page.text)
            #expect(settings["demo"] as? Bool == false, "Simulate my drive exists only in the demo")
            #expect(settings["gpsLostAfterS"] as? Double == RiderAppRules.gpsLostAfterSeconds)
            #expect(settings["offRouteM"] as? Double == RiderAppRules.offRouteDistanceM)
            #expect(settings["offRouteFixes"] as? Int == RiderAppRules.offRouteFixes)
            let statuses = settings["statuses"] as? [String: [String: Any]] ?? [:]
            #expect(statuses.count == TaskStatus.allCases.count)
            for status in TaskStatus.allCases {
                let rule = statuses[status.rawValue] ?? [:]
                #expect(rule["allowedNext"] as? [String] == status.allowedNext.map(\.rawValue), "\(status)")
                #expect(rule["nextStop"] as? String == status.nextStop?.rawValue, "\(status)")
                #expect(rule["isFinal"] as? Bool == status.isFinal, "\(status)")
            }
            let english = try Self.attribute("data-texts", in: page.text)
            #expect(english.count > 20)

            let hindi = try await server.send(.get, "/rider", headers: ["Accept-Language": "hi-IN,hi;q=0.9"])
            #expect(hindi.text.contains(#"<html lang="hi""#))
            let hindiTexts = try Self.attribute("data-texts", in: hindi.text)
            #expect(Set(hindiTexts.keys) == Set(english.keys), "every word, English where not translated")
            #expect(hindiTexts.filter { english[$0.key] as? String != $0.value as? String }.count > 10)
            let marathi = try await server.send(.get, "/rider", headers: ["Accept-Language": "mr"])
            #expect(marathi.text.contains(#"<html lang="mr""#))

            // Every file the page names is served, secured, and so is everything those files name.
            var pending = Self.assetPaths(in: page.text)
            var seen = Set<String>()
            #expect(pending.contains("/web/Rider/rider.js"))
            while let path = pending.popLast() {
                guard seen.insert(path).inserted else { continue }
                let asset = try await server.send(.get, path)
                #expect(asset.status == 200, "\(path)")
                TrackingPageTests.expectSecured(asset, path)
                if asset.contentType?.hasPrefix("text/") == true || path.hasSuffix(".webmanifest") {
                    pending += Self.assetPaths(in: asset.text, at: path)
                }
            }
            #expect(seen.contains("/web/Rider/Navigation/rider-nav.js"), "modules loaded on first use are found too")

            let manifest = try await server.send(.get, "/web/Rider/rider.webmanifest")
            #expect(manifest.contentType == "application/manifest+json")
            #expect(manifest["start_url"] as? String == "/rider")
            #expect(manifest["display"] as? String == "standalone")
            let icons = manifest["icons"] as? [[String: Any]] ?? []
            for size in ["192x192", "512x512"] {
                let icon = try #require(icons.first { $0["sizes"] as? String == size }, "an icon of \(size)")
                let image = try await server.send(.get, icon["src"] as? String ?? "")
                #expect(image.contentType == "image/png")
                #expect(image.body.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a real PNG")
            }

            // The worker comes from the root so it may control /rider, and is re-checked on every start.
            let worker = try await server.send(.get, "/rider-sw.js")
            #expect(worker.status == 200)
            #expect(worker.contentType == "text/javascript; charset=utf-8")
            #expect(worker.headers[.cacheControl] == "no-cache")
            // The worker keeps every file the app may load, so the app opens offline and navigates offline.
            let kept = Set(Self.assetPaths(in: worker.text))
            #expect(seen.subtracting(kept).sorted() == [], "files the worker's list lacks")
            #expect(kept.subtracting(seen).sorted() == [], "files in the worker's list the app does not load")
            #expect(
                try await server.send(.get, "/web/Rider/rider.html").status == 404,
                "the template is not a file to fetch")
            #expect(
                try await server.send(.get, "/web/Rider/Text/rider-text-en.json").status == 404,
                "the words come in the page")
        }
    }

    @Test("the demo's page offers Simulate my drive; the radius comes with each task, from configuration")
    func demoAndRadius() async throws {
        try await TestServer.run(.sqlite, configure: { $0.riderAppDemo = true }) { server in
            let page = try await server.send(.get, "/rider")
            #expect(try Self.attribute("data-config", in: page.text)["demo"] as? Bool == true)
        }
        try await TestServer.run(.sqlite, configure: { $0.delivery.geofenceRadiusM = 250 }) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, _) = try await scenario.assigned()
            let task = try await server.send(.get, "/api/v1/rider/tasks/active", token: rider)
            #expect(task["geofenceRadiusM"] as? Double == 250)
        }
    }
}
