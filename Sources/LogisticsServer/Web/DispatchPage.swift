import Foundation
import Hummingbird

/// `GET /dispatch`: the dispatcher's live map. The page itself is public and holds no data; everything it shows
/// comes from the API with the dispatcher's token, which the script keeps in sessionStorage (from a sign-in box, or
/// from `#token=…`, which browsers never send to a server).
struct DispatchPage {
    let tileServer: RasterTileServer?

    func register(on router: Router<LogisticsRequestContext>) {
        let page = WebPage.html(Self.html(tileServer: tileServer), tileServer: tileServer)
        router.get("/dispatch") { _, _ in page }
    }

    static func html(tileServer: RasterTileServer?) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="icon" href="data:,">
        <title>Dispatch · Rider Logistics</title>
        <link rel="stylesheet" href="/web/dispatch.css">
        <script type="module" src="/web/dispatch.js"></script>
        </head>
        <body\(WebPage.tileAttribute(tileServer))>
        <header><h1>Dispatch</h1><span id="connection">Signed out</span>
        <span>Riders on the map: <strong id="rider-count">0</strong></span>
        <ul class="legend"><li><i class="on-task"></i>On a task</li><li><i class="online"></i>Free</li>\
        <li><i class="offline"></i>Offline</li></ul></header>
        <form id="sign-in">
        <h2>Sign in</h2>
        <label for="token">Dispatcher or admin token</label>
        <input id="token" name="token" type="password" autocomplete="off" required>
        <button type="submit">Open the live map</button>
        <p id="sign-in-error" class="error" role="alert"></p>
        </form>
        <div id="app" hidden>
        <canvas id="map" role="img" aria-label="Riders on the map"></canvas>
        <aside>
        <h2>Open orders</h2><ul id="orders"></ul>
        <section id="order-panel" hidden>
        <h2 id="order-title"></h2>
        <p id="offer-hint" class="hint">Choose riders (free, nearest the store first), or none for the 3 nearest by road.</p>
        <ul id="candidates"></ul>
        <button id="offer" type="button">Offer the order</button>
        <button id="cancel" type="button">Cancel the order</button>
        <ul id="timeline"></ul>
        </section>
        <h2>Events</h2><ul id="feed" aria-live="polite"></ul>
        <p class="attribution">© OpenStreetMap contributors</p>
        </aside>
        </div>
        </body>
        </html>
        """
    }
}
