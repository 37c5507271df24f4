import Foundation
import HTTPTypes
import Hummingbird

/// The pages' own scripts and styles, compiled into the binary (no build step, no files to deploy). Edit them
/// here; `node --check` on a copy is the quickest syntax check.
struct WebAsset: Sendable {
    let name: String
    let contentType: String
    let body: CompressedBody
    let headers: HTTPFields

    init(name: String, contentType: String, text: String) {
        self.name = name
        self.contentType = contentType
        body = CompressedBody(Data(text.utf8))
        var response = APIResponse(status: .ok, body: Data(), contentType: contentType)
        WebPage.secure(&response)
        response.extraHeaders[.cacheControl] = "public, max-age=300"
        headers = response.extraHeaders
    }

    func response(for request: Request) -> APIResponse {
        body.response(for: request, contentType: contentType, headers: headers)
    }
}

enum WebAssets {
    static let all = [mapScript, trackingScript, trackingStyle, dispatchScript, dispatchStyle]

    static let mapScript = WebAsset(
        name: "map.js", contentType: "text/javascript; charset=utf-8",
        text: #"""
            // A small canvas map drawn from the server's own road tiles (/map/tiles/z/x/y), or from the operator's raster tile
            // server when one is configured: no tile provider by default, no library.
            const TILE = 512; // CSS pixels per tile
            const STYLE = {
              motorway: ['#c0563c', 5], trunk: ['#c0563c', 4.5], primary: ['#d08a3c', 4], secondary: ['#c9a449', 3.5],
              tertiary: ['#8a8f98', 3], link: ['#8a8f98', 2.5], minor: ['#9aa0a8', 2], service: ['#b8bcc2', 1.2],
            };
            const LAND = '#eef0f2';
            const SEA = '#c6dcef';
            const COAST = '#8fb3d6';

            export function world(lat, lon, z) {
              const n = 2 ** z;
              const rad = (Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI) / 180;
              return [((lon + 180) / 360) * n, ((1 - Math.asinh(Math.tan(rad)) / Math.PI) / 2) * n];
            }

            export class TileMap {
              // rasterTemplate: the operator's tile URL template (LOGISTICS_TILE_URL, with {z}, {x}, {y}; 256-px tiles).
              constructor(canvas, rasterTemplate = document.body.dataset.tileUrl || null) {
                this.canvas = canvas;
                this.raster = rasterTemplate;
                this.tiles = new Map();
                this.markers = [];
                this.z = 15;
                this.center = null; // set by fit(); nothing is drawn before
                // The roads are drawn once per view into a layer of their own; markers move over it without redrawing them.
                this.base = document.createElement('canvas');
                this.baseKey = '';
                this.tilesVersion = 0;
                new ResizeObserver(() => this.draw()).observe(canvas);
              }

              // Zoom and centre so every point is on screen with a margin.
              fit(points) {
                if (points.length === 0) return;
                const width = this.canvas.clientWidth || 360;
                const height = this.canvas.clientHeight || 300;
                for (let z = 17; z >= 11; z--) {
                  const xy = points.map((p) => world(p.lat, p.lon, z));
                  const xs = xy.map((p) => p[0]);
                  const ys = xy.map((p) => p[1]);
                  const spanX = (Math.max(...xs) - Math.min(...xs)) * TILE;
                  const spanY = (Math.max(...ys) - Math.min(...ys)) * TILE;
                  if (spanX <= width * 0.8 && spanY <= height * 0.8) {
                    this.z = z;
                    this.center = [(Math.max(...xs) + Math.min(...xs)) / 2, (Math.max(...ys) + Math.min(...ys)) / 2];
                    break;
                  }
                }
                this.draw();
              }

              setMarkers(markers) {
                this.markers = markers;
                this.draw();
              }

              toScreen(lat, lon) {
                const [x, y] = world(lat, lon, this.z);
                const width = this.canvas.clientWidth;
                const height = this.canvas.clientHeight;
                return [(x - this.center[0]) * TILE + width / 2, (y - this.center[1]) * TILE + height / 2];
              }

              loaded(key, tile) {
                this.tiles.set(key, tile);
                this.tilesVersion++;
                this.draw();
              }

              tile(z, x, y) {
                const key = `${z}/${x}/${y}`;
                if (!this.tiles.has(key)) {
                  this.tiles.set(key, null);
                  fetch(`/map/tiles/${key}`)
                    .then((response) => (response.ok ? response.json() : null))
                    .then((tile) => this.loaded(key, tile))
                    .catch(() => this.tiles.delete(key));
                }
                return this.tiles.get(key);
              }

              rasterTile(z, x, y) {
                const key = `r${z}/${x}/${y}`;
                if (!this.tiles.has(key)) {
                  const image = new Image();
                  this.tiles.set(key, null);
                  image.onload = () => this.loaded(key, image);
                  image.onerror = () => this.tiles.delete(key);
                  image.src = this.raster.replace('{z}', z).replace('{x}', x).replace('{y}', y);
                }
                return this.tiles.get(key);
              }

              drawVectorTile(g, tile, originX, originY) {
                const unit = TILE / tile.extent;
                const path = (line) => {
                  g.moveTo(originX + line[0] * unit, originY + line[1] * unit);
                  for (let i = 2; i < line.length; i += 2) g.lineTo(originX + line[i] * unit, originY + line[i + 1] * unit);
                };
                if (tile.sea && tile.sea.length) {
                  g.fillStyle = SEA;
                  g.beginPath();
                  for (const ring of tile.sea) path(ring);
                  g.fill('evenodd');
                }
                if (tile.coast && tile.coast.length) {
                  g.strokeStyle = COAST;
                  g.lineWidth = 1.5;
                  g.beginPath();
                  for (const line of tile.coast) path(line);
                  g.stroke();
                }
                for (const road of tile.roads) {
                  const [colour, lineWidth] = STYLE[road.class] || STYLE.minor;
                  g.strokeStyle = colour;
                  g.lineWidth = lineWidth;
                  g.beginPath();
                  for (const line of road.lines) path(line);
                  g.stroke();
                }
              }

              drawBase(width, height, ratio) {
                const base = this.base;
                const key = `${this.z}|${this.center}|${width}|${height}|${ratio}|${this.tilesVersion}`;
                if (key === this.baseKey) return;
                this.baseKey = key;
                base.width = Math.round(width * ratio);
                base.height = Math.round(height * ratio);
                const g = base.getContext('2d');
                g.setTransform(ratio, 0, 0, ratio, 0, 0);
                g.fillStyle = LAND;
                g.fillRect(0, 0, width, height);
                const z = this.z;
                const left = Math.floor(this.center[0] - width / 2 / TILE);
                const right = Math.floor(this.center[0] + width / 2 / TILE);
                const top = Math.floor(this.center[1] - height / 2 / TILE);
                const bottom = Math.floor(this.center[1] + height / 2 / TILE);
                g.lineCap = 'round';
                g.lineJoin = 'round';
                const last = 2 ** z - 1;
                for (let x = Math.max(0, left); x <= Math.min(last, right); x++) {
                  for (let y = Math.max(0, top); y <= Math.min(last, bottom); y++) {
                    // Whole pixels, so neighbouring tiles' sea meets without an anti-aliased seam.
                    const originX = Math.round((x - this.center[0]) * TILE + width / 2);
                    const originY = Math.round((y - this.center[1]) * TILE + height / 2);
                    if (this.raster) {
                      // Raster servers cut 256-px tiles: one of our tiles is four of theirs one zoom level deeper.
                      for (let i = 0; i < 4; i++) {
                        const image = this.rasterTile(z + 1, 2 * x + (i & 1), 2 * y + (i >> 1));
                        if (image) g.drawImage(image, originX + (i & 1) * (TILE / 2), originY + (i >> 1) * (TILE / 2), TILE / 2, TILE / 2);
                      }
                    } else {
                      const tile = this.tile(z, x, y);
                      if (tile) this.drawVectorTile(g, tile, originX, originY);
                    }
                  }
                }
              }

              draw() {
                const canvas = this.canvas;
                const ratio = window.devicePixelRatio || 1;
                const width = canvas.clientWidth;
                const height = canvas.clientHeight;
                if (width === 0 || height === 0 || this.center === null) return;
                if (canvas.width !== Math.round(width * ratio)) canvas.width = Math.round(width * ratio);
                if (canvas.height !== Math.round(height * ratio)) canvas.height = Math.round(height * ratio);
                this.drawBase(width, height, ratio);
                const g = canvas.getContext('2d');
                g.setTransform(1, 0, 0, 1, 0, 0);
                g.drawImage(this.base, 0, 0);
                g.setTransform(ratio, 0, 0, ratio, 0, 0);
                for (const marker of this.markers) {
                  const [sx, sy] = this.toScreen(marker.lat, marker.lon);
                  if (sx < -20 || sy < -20 || sx > width + 20 || sy > height + 20) continue;
                  g.fillStyle = marker.colour;
                  g.strokeStyle = '#ffffff';
                  g.lineWidth = marker.small ? 1.5 : 3;
                  g.beginPath();
                  if (marker.shape === 'square') g.rect(sx - 8, sy - 8, 16, 16);
                  else if (marker.heading != null) {
                    // An arrow pointing where the rider is heading (degrees clockwise from north).
                    const size = marker.small ? 7 : 11;
                    const angle = (marker.heading * Math.PI) / 180;
                    const sin = Math.sin(angle);
                    const cos = Math.cos(angle);
                    const at = (along, across) => [sx + along * sin + across * cos, sy - along * cos + across * sin];
                    g.moveTo(...at(size, 0));
                    g.lineTo(...at(-size * 0.7, size * 0.75));
                    g.lineTo(...at(-size * 0.35, 0));
                    g.lineTo(...at(-size * 0.7, -size * 0.75));
                    g.closePath();
                  } else g.arc(sx, sy, marker.small ? 5 : marker.shape === 'rider' ? 10 : 8, 0, 2 * Math.PI);
                  g.fill();
                  g.stroke();
                  if (marker.label) {
                    g.font = '600 13px system-ui, sans-serif';
                    g.lineWidth = 4;
                    // Labels sit right of their marker, or left of it near the right edge.
                    const labelWidth = g.measureText(marker.label).width;
                    const lx = sx + 13 + labelWidth > width - 4 ? sx - 13 - labelWidth : sx + 13;
                    g.strokeText(marker.label, lx, sy + 4);
                    g.fillStyle = '#1d2127';
                    g.fillText(marker.label, lx, sy + 4);
                  }
                }
              }
            }
            """#)

    static let trackingScript = WebAsset(
        name: "track.js", contentType: "text/javascript; charset=utf-8",
        text: #"""
            // The customer's tracking page: follows the order's live stream with the tracking link's token.
            import { TileMap } from './map.js';

            const body = document.body;
            const orderId = body.dataset.orderId;
            const text = JSON.parse(body.dataset.texts || '{}');
            const token = decodeURIComponent(location.pathname.split('/').pop());
            const statusLine = document.getElementById('status');
            const etaLine = document.getElementById('eta');
            const updatedLine = document.getElementById('updated');
            const map = new TileMap(document.getElementById('map'));

            const state = {
              seq: null, stream: null, vendor: null, destination: null, rider: null, shown: null, etaAt: null, distanceM: null, ended: false,
            };
            let retry = 1000;

            const say = (template, values) => template.replace(/\{(\w+)\}/g, (_, key) => values[key] ?? '');
            const clock = (iso) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

            function markers() {
              const list = [];
              if (state.vendor) list.push({ ...state.vendor.location, colour: '#5b4bc4', shape: 'square', label: text.store });
              if (state.destination) list.push({ ...state.destination.location, colour: '#1f7a4d', shape: 'pin', label: text.you });
              if (state.shown) list.push({ ...state.shown, colour: '#c2410c', shape: 'rider' });
              return list;
            }

            // The rider glides to each new fix over a second instead of jumping.
            function moveRider(to) {
              const from = state.shown || to;
              const start = performance.now();
              state.rider = to;
              const step = (now) => {
                const t = Math.min(1, (now - start) / 1000);
                state.shown = { lat: from.lat + (to.lat - from.lat) * t, lon: from.lon + (to.lon - from.lon) * t };
                map.setMarkers(markers());
                if (t < 1 && state.rider === to) requestAnimationFrame(step);
              };
              requestAnimationFrame(step);
            }

            function showEta() {
              if (state.etaAt == null || state.ended) return;
              const minutes = Math.max(1, Math.round((state.etaAt - Date.now()) / 60000));
              let line = say(text.eta, { minutes });
              if (state.distanceM != null) {
                const away = state.distanceM < 1000
                  ? say(text.distanceM, { metres: Math.max(10, Math.round(state.distanceM / 10) * 10) })
                  : say(text.distance, { km: (state.distanceM / 1000).toFixed(1) });
                line += ` · ${away}`;
              }
              etaLine.textContent = line;
            }

            // The road ETA and distance from where the rider is now, by the link's own snapshot (the stream's location
            // messages carry only the position).
            async function refreshEta() {
              if (state.ended || state.seq == null) return;
              try {
                const response = await fetch(`/track/${encodeURIComponent(token)}/snapshot`, { cache: 'no-store' });
                if (!response.ok) return;
                const snapshot = await response.json();
                if (snapshot.etaSeconds != null) state.etaAt = Date.now() + snapshot.etaSeconds * 1000;
                if (snapshot.remainingDistanceM != null) state.distanceM = snapshot.remainingDistanceM;
                showEta();
              } catch (error) {
                // Offline for a moment: the stream's reconnect says so; the next refresh catches up.
              }
            }

            function handle(message) {
              if (message.seq != null) state.seq = message.seq;
              switch (message.type) {
                case 'snapshot':
                  state.stream = message.stream;
                  state.vendor = message.vendor;
                  state.destination = message.destination;
                  statusLine.textContent = text[message.status] || message.status;
                  if (message.etaSeconds != null) state.etaAt = Date.now() + message.etaSeconds * 1000;
                  if (message.remainingDistanceM != null) state.distanceM = message.remainingDistanceM;
                  if (message.rider) {
                    state.rider = state.shown = { lat: message.rider.lat, lon: message.rider.lon };
                    if (message.stale) {
                      updatedLine.textContent = say(text.lastUpdated, { time: clock(message.rider.recordedAt) });
                      updatedLine.hidden = false;
                    }
                  } else {
                    etaLine.textContent = text.waiting;
                  }
                  map.fit(markers());
                  map.setMarkers(markers());
                  showEta();
                  break;
                case 'location':
                  updatedLine.hidden = true;
                  moveRider({ lat: message.lat, lon: message.lon });
                  break;
                case 'stale':
                  if (message.lastFixAt) {
                    updatedLine.textContent = say(text.lastUpdated, { time: clock(message.lastFixAt) });
                    updatedLine.hidden = false;
                  }
                  break;
                case 'status':
                  statusLine.textContent = text[message.status] || message.status;
                  break;
                case 'ended':
                  state.ended = true;
                  document.getElementById('map-box').remove();
                  etaLine.textContent = '';
                  updatedLine.hidden = true;
                  statusLine.textContent = text[message.status] || message.status;
                  break;
                case 'resync':
                  state.seq = null;
                  break;
                case 'error':
                  statusLine.textContent = (message.problem && message.problem.title) || text.endedTitle;
                  state.ended = true;
                  break;
              }
            }

            function connect() {
              const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
              const socket = new WebSocket(`${scheme}//${location.host}/api/v1/customer/orders/${orderId}/tracking`, ['bearer', token]);
              socket.onopen = () => {
                retry = 1000;
                if (state.seq != null) socket.send(JSON.stringify({ resumeFrom: state.seq, stream: state.stream }));
              };
              socket.onmessage = (event) => {
                try {
                  handle(JSON.parse(event.data));
                } catch (error) {
                  console.warn('unreadable tracking message', error);
                }
                if (state.ended) socket.close(1000);
              };
              socket.onclose = () => {
                if (state.ended) return;
                statusLine.textContent = text.reconnecting;
                setTimeout(connect, retry);
                retry = Math.min(retry * 2, 15000);
              };
            }

            setInterval(showEta, 15000);
            setInterval(refreshEta, 30000);
            connect();
            """#)

    static let trackingStyle = WebAsset(
        name: "track.css", contentType: "text/css; charset=utf-8",
        text: #"""
            :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
            body { margin: 0; background: #ffffff; color: #1d2127; }
            main { max-width: 960px; margin: 0 auto; padding: 16px; }
            h1 { font-size: 1.4rem; margin: 0 0 8px; }
            .status { font-size: 1.15rem; font-weight: 600; margin: 4px 0 12px; color: #1d2127; }
            #map-box { position: relative; width: 100%; height: min(70vh, 560px); border-radius: 12px; overflow: hidden; border: 1px solid #c9cdd2; }
            #map { width: 100%; height: 100%; display: block; }
            .rider { margin: 0 0 10px; color: #1d2127; }
            .eta { font-size: 1.1rem; margin: 12px 0 4px; color: #1d2127; }
            .updated { margin: 4px 0; color: #8a3b00; font-weight: 600; }
            .attribution { font-size: 0.8rem; color: #4a5058; margin-top: 12px; }
            @media (max-width: 480px) { main { padding: 10px; } h1 { font-size: 1.2rem; } #map-box { height: 60vh; } }
            """#)

    static let dispatchScript = WebAsset(
        name: "dispatch.js", contentType: "text/javascript; charset=utf-8",
        text: #"""
            // The dispatcher's live map: the fleet from GET /api/v1/riders, every rider's fixes and every order event from
            // WS /api/v1/dispatch/stream, the open orders, an order's timeline, and offering or cancelling it. The token comes
            // from the sign-in box or the URL fragment (#token=…, never sent to the server) and is kept in sessionStorage only.
            import { TileMap } from './map.js';

            const $ = (id) => document.getElementById(id);
            const riders = new Map();
            const MONACO = [{ lat: 43.745, lon: 7.435 }, { lat: 43.726, lon: 7.412 }];
            const COLOURS = { ON_TASK: '#c2410c', ONLINE: '#1f7a4d', OFFLINE: '#6b7280' };
            const ENDED = ['DELIVERED', 'CANCELLED', 'FAILED'];
            let map = null;
            let socket = null;
            let selected = null;
            let refresher = null;
            // Stream messages wait here for the next frame: a busy fleet is drawn once per frame, not once per fix.
            let pending = [];
            let frameRequested = false;
            // How long each batch of updates took in the page (apply + draw), for the benchmark and the curious.
            const performanceLog = { batches: [], messages: 0 };
            window.dispatchPerformance = performanceLog;

            function token() {
              const fragment = new URLSearchParams(location.hash.slice(1)).get('token');
              if (fragment) {
                sessionStorage.setItem('dispatchToken', fragment);
                history.replaceState(null, '', location.pathname); // the token leaves the address bar
              }
              return sessionStorage.getItem('dispatchToken');
            }

            async function api(method, path, body) {
              const response = await fetch(path, {
                method,
                headers: { Authorization: `Bearer ${token()}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
                body: body ? JSON.stringify(body) : undefined,
              });
              const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
              if (!response.ok) throw new Error(data.title || `HTTP ${response.status}`);
              return data;
            }

            function rider(id) {
              let entry = riders.get(id);
              if (!entry) {
                entry = { id, availability: 'ONLINE', lat: null, lon: null, heading: null, name: null };
                riders.set(id, entry);
              }
              return entry;
            }

            function redraw() {
              if (!map) return;
              const small = riders.size > 200;
              const markers = [];
              for (const r of riders.values()) {
                if (r.lat == null) continue;
                markers.push({ lat: r.lat, lon: r.lon, heading: r.heading, colour: COLOURS[r.availability] || COLOURS.ONLINE, shape: 'rider', small });
              }
              map.setMarkers(markers);
              $('rider-count').textContent = String(markers.length);
            }

            function feed(text) {
              const item = document.createElement('li');
              item.textContent = `${new Date().toLocaleTimeString()} ${text}`;
              const list = $('feed');
              list.prepend(item);
              while (list.children.length > 100) list.lastChild.remove();
            }

            function apply(data) {
              if (data.type === 'riderLocation') {
                const entry = rider(data.riderId);
                entry.lat = data.lat;
                entry.lon = data.lon;
                entry.heading = data.headingDeg ?? null;
              } else if (data.type === 'event') {
                const event = data.event;
                feed(`${event.type}${event.status ? ' ' + event.status : ''} · order ${event.orderId.slice(0, 8)}`);
                const riderId = event.data && event.data.riderId;
                if (riderId && event.type === 'OrderAssigned') rider(riderId).availability = 'ON_TASK';
                else if (riderId && ENDED.includes(event.status)) rider(riderId).availability = 'ONLINE';
                if (selected && selected.orderId === event.orderId) showOrder({ ...selected, status: event.status || selected.status });
              } else if (data.type === 'error') {
                signOut((data.problem && data.problem.title) || 'Refused');
              }
            }

            function flush() {
              frameRequested = false;
              const started = performance.now();
              const batch = pending;
              pending = [];
              for (const text of batch) {
                try {
                  apply(JSON.parse(text));
                } catch (error) {
                  console.warn('unreadable dispatch message', error);
                }
              }
              redraw();
              performanceLog.messages += batch.length;
              performanceLog.batches.push(performance.now() - started);
              if (performanceLog.batches.length > 5000) performanceLog.batches.splice(0, 1000);
            }

            // The fleet as stored: who is online or on a task and where each rider was last seen. Live fixes then move them.
            async function loadFleet() {
              const fleet = await api('GET', '/api/v1/riders?limit=5000');
              for (const item of fleet.riders) {
                const entry = rider(item.riderId);
                entry.availability = item.availability;
                entry.name = item.name;
                if (entry.lat == null && item.lastLocation) {
                  entry.lat = item.lastLocation.lat;
                  entry.lon = item.lastLocation.lon;
                }
              }
              redraw();
            }

            async function loadOrders() {
              const page = await api('GET', '/api/v1/orders?limit=50');
              const list = $('orders');
              list.replaceChildren();
              for (const order of page.orders) {
                if (ENDED.includes(order.status)) continue;
                const item = document.createElement('li');
                const button = document.createElement('button');
                button.type = 'button';
                button.textContent = `${order.externalRef || order.orderId.slice(0, 8)} · ${order.status}`;
                button.addEventListener('click', () => showOrder(order));
                item.append(button);
                list.append(item);
              }
            }

            // The free riders nearest the store (straight line), for the dispatcher to choose from.
            function candidates(order) {
              const store = order.vendor && order.vendor.location;
              if (!store) return [];
              const metres = (r) => Math.hypot((r.lat - store.lat) * 111320, (r.lon - store.lon) * 111320 * Math.cos((store.lat * Math.PI) / 180));
              return [...riders.values()]
                .filter((r) => r.availability === 'ONLINE' && r.lat != null)
                .map((r) => ({ rider: r, metres: metres(r) }))
                .sort((a, b) => a.metres - b.metres)
                .slice(0, 8);
            }

            function showCandidates(order) {
              const list = $('candidates');
              list.replaceChildren();
              for (const { rider: r, metres } of candidates(order)) {
                const item = document.createElement('li');
                const label = document.createElement('label');
                const box = document.createElement('input');
                box.type = 'checkbox';
                box.value = r.id;
                label.append(box, ` ${r.name || r.id.slice(0, 8)} · ${metres < 1000 ? Math.round(metres) + ' m' : (metres / 1000).toFixed(1) + ' km'}`);
                item.append(label);
                list.append(item);
              }
              if (!list.children.length) list.append(Object.assign(document.createElement('li'), { textContent: 'No free rider online' }));
            }

            async function showOrder(order) {
              selected = order;
              $('order-title').textContent = `${order.externalRef || order.orderId} · ${order.status}`;
              $('order-panel').hidden = false;
              // Offers need an order ready for pickup; a finished order can no longer be cancelled.
              const offerable = order.status === 'READY_FOR_PICKUP';
              for (const id of ['offer-hint', 'candidates', 'offer']) $(id).hidden = !offerable;
              $('cancel').hidden = ENDED.includes(order.status);
              if (offerable) showCandidates(order);
              const log = await api('GET', `/api/v1/orders/${order.orderId}/events`);
              const timeline = $('timeline');
              timeline.replaceChildren();
              for (const event of log.events) {
                const item = document.createElement('li');
                item.textContent = `${new Date(event.occurredAt).toLocaleTimeString()} ${event.type}${event.status ? ' ' + event.status : ''}`;
                timeline.append(item);
              }
            }

            function connect() {
              const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
              socket = new WebSocket(`${scheme}//${location.host}/api/v1/dispatch/stream`, ['bearer', token()]);
              socket.onopen = () => { $('connection').textContent = 'Live'; };
              socket.onmessage = (message) => {
                pending.push(message.data);
                if (!frameRequested) {
                  frameRequested = true;
                  requestAnimationFrame(flush);
                }
              };
              socket.onclose = (event) => {
                $('connection').textContent = 'Disconnected';
                if (event.code >= 4000) signOut('This token is not allowed here');
                else if (token()) setTimeout(connect, 2000);
              };
            }

            function signOut(reason) {
              sessionStorage.removeItem('dispatchToken');
              clearInterval(refresher);
              $('sign-in-error').textContent = reason;
              $('app').hidden = true;
              $('sign-in').hidden = false;
            }

            function refresh() {
              loadOrders().catch((error) => feed(`orders: ${error.message}`));
              loadFleet().catch((error) => feed(`riders: ${error.message}`));
            }

            function start() {
              $('sign-in').hidden = true;
              $('app').hidden = false;
              $('sign-in-error').textContent = '';
              $('feed').replaceChildren();
              map = map || new TileMap($('map'));
              map.fit(MONACO);
              if (socket) {
                socket.onclose = null;
                socket.close();
              }
              connect();
              refresh();
              clearInterval(refresher);
              refresher = setInterval(refresh, 10000);
            }

            $('sign-in').addEventListener('submit', (event) => {
              event.preventDefault();
              sessionStorage.setItem('dispatchToken', $('token').value.trim());
              $('token').value = '';
              start();
            });
            $('offer').addEventListener('click', async () => {
              if (!selected) return;
              const chosen = [...document.querySelectorAll('#candidates input:checked')].map((box) => box.value);
              const body = chosen.length ? { riderIds: chosen } : { strategy: 'nearest', count: 3 };
              try {
                const made = await api('POST', `/api/v1/orders/${selected.orderId}/offers`, body);
                feed(`offered ${selected.orderId.slice(0, 8)} to ${made.offers.length} rider(s)${chosen.length ? '' : ' nearest by road'}`);
              } catch (error) { feed(`offer: ${error.message}`); }
            });
            $('cancel').addEventListener('click', async () => {
              if (!selected) return;
              try {
                await api('POST', `/api/v1/orders/${selected.orderId}/cancel`, { reason: 'cancelled by dispatch' });
                feed(`cancelled ${selected.orderId.slice(0, 8)}`);
                loadOrders();
              } catch (error) { feed(`cancel: ${error.message}`); }
            });

            // A link with #token=… opened on this page already (the fragment changes, the page does not reload).
            window.addEventListener('hashchange', () => {
              if (location.hash.includes('token=') && token()) start();
            });
            if (token()) start();
            """#)

    static let dispatchStyle = WebAsset(
        name: "dispatch.css", contentType: "text/css; charset=utf-8",
        text: #"""
            [hidden] { display: none !important; }
            :root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: #1d2127; }
            body { margin: 0; }
            header { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: baseline; padding: 10px 16px; border-bottom: 1px solid #c9cdd2; }
            header h1 { font-size: 1.2rem; margin: 0; }
            #app { display: grid; grid-template-columns: 1fr 320px; height: calc(100vh - 48px); }
            #map { width: 100%; height: 100%; display: block; }
            aside { overflow-y: auto; border-left: 1px solid #c9cdd2; padding: 8px 12px; font-size: 0.9rem; }
            aside h2 { font-size: 1rem; margin: 12px 0 4px; }
            ul { list-style: none; padding: 0; margin: 0; }
            #orders button { width: 100%; text-align: left; padding: 6px; margin: 2px 0; border: 1px solid #c9cdd2; background: #ffffff; color: #1d2127; border-radius: 6px; cursor: pointer; }
            #feed li, #timeline li { padding: 3px 0; border-bottom: 1px solid #eef0f2; }
            #sign-in { max-width: 420px; margin: 40px auto; padding: 16px; }
            #sign-in input { width: 100%; padding: 8px; margin: 8px 0; box-sizing: border-box; }
            .error { color: #a3120b; }
            .attribution { font-size: 0.75rem; color: #4a5058; }
            .legend { display: flex; gap: 12px; margin: 0 0 0 auto; font-size: 0.85rem; }
            .legend i { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 4px; vertical-align: -1px; }
            .legend .on-task { background: #c2410c; } .legend .online { background: #1f7a4d; } .legend .offline { background: #6b7280; }
            .hint { color: #4a5058; margin: 6px 0; }
            #candidates label { display: block; padding: 2px 0; }
            #order-panel button { margin: 6px 6px 6px 0; padding: 6px 10px; }
            @media (max-width: 700px) { .legend { margin: 0; } #app { grid-template-columns: 1fr; grid-template-rows: 55vh auto; height: auto; } }
            """#)
}
