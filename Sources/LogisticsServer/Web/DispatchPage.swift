import Foundation
import Hummingbird

/// `GET /dispatch`: the dispatcher's live map. The page itself is public and holds no data; everything it shows
/// comes from the API with the dispatcher's token, which the script keeps in sessionStorage (from a sign-in box, or
/// from `#token=…`, which browsers never send to a server).
struct DispatchPage {
    func register(on router: Router<LogisticsRequestContext>) {
        router.get("/dispatch") { _, _ in WebPage.html(Self.html) }
    }

    static let html = """
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
        <body>
        <header><h1>Dispatch</h1><span id="connection">Signed out</span>
        <span>Riders seen: <strong id="rider-count">0</strong></span></header>
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
        <button id="offer" type="button">Offer to the 3 nearest riders</button>
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
