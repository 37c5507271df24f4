// @ts-check
// The customer's tracking page: follows the order's live stream with the tracking link's token.
import { TileMap, decodePolyline } from '../Shared/map.js';
import { clock } from './track-clock.js';
import { setUpRating } from './track-rating.js';

const body = document.body;
const orderId = body.dataset.orderId;
const text = JSON.parse(body.dataset.texts || '{}');
const token = decodeURIComponent(location.pathname.split('/').pop() || '');
// The page's lines, always in track.html (the map's boxes are not on every page, and stay nullable).
const lineOf = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const statusLine = lineOf('status');
const etaLine = lineOf('eta');
const updatedLine = lineOf('updated');
const endedLine = lineOf('ended-at');
const mapBox = document.getElementById('map-box');
const mapLater = document.getElementById('map-later');
// Plain grey roads: coloured ones would read as traffic, which is for riders and dispatchers.
const map = new TileMap(
  /** @type {HTMLCanvasElement} */ (document.getElementById('map')), undefined, { plainRoads: true });
const store = body.dataset.store || '';
// Before pickup the stream answers "not yet": the page asks again this often, saying where the order is meanwhile.
const BEFORE_PICKUP_RETRY_MS = 15000;
// The road left is asked for again at most this often while the rider moves, and at once when they leave it.
const ROUTE_REFRESH_MS = 10000;
const OFF_ROUTE_M = 60;

/** @typedef {{lat: number, lon: number}} Place */
/** @typedef {{location: Place}} Stop */
const state = {
  /** @type {number | null} */ seq: null,
  /** @type {string | null} */ stream: null,
  /** @type {Stop | null} */ vendor: null,
  /** @type {Stop | null} */ destination: null,
  /** @type {Place | null} where the last fix put the rider */ rider: null,
  /** @type {Place | null} where the marker is drawn, gliding to `rider` */ shown: null,
  /** @type {number | null} */ etaAt: null,
  /** @type {number | null} */ distanceM: null,
  /** @type {string | null} when the status last changed */ statusAt: null,
  ended: false,
  waitingForPickup: false,
  /** @type {{lat: number, lon: number}[]} the road from the rider to the door */
  route: [],
  /** @type {number | null} degrees clockwise from north */
  heading: null,
  routeAskedAt: 0,
  /** @type {string | null} the order's status as the stream last said it */
  status: null,
};
let retry = 1000;

/** @type {(template: string, values: Record<string, string | number>) => string} */
const say = (template, values) => template.replace(/\{(\w+)\}/g, (_, key) => String(values[key] ?? ''));
const statusWords = (/** @type {string} */ status) => say(text[status] || status, { store });
// A rider waiting at the door sends few fixes, and the status already says where they are: no "Last updated" then.
const atTheDoor = () => state.status === 'ARRIVED_AT_DESTINATION';

/** @param {boolean} visible */
function showMap(visible) {
  if (mapBox) mapBox.hidden = !visible;
  if (mapLater) mapLater.hidden = visible;
}

function markers() {
  const list = [];
  if (state.vendor) list.push({ ...state.vendor.location, colour: '#5b4bc4', shape: 'square', label: text.store });
  if (state.destination) list.push({ ...state.destination.location, colour: '#1f7a4d', shape: 'pin', label: text.you });
  if (state.shown) list.push({ ...state.shown, colour: '#c2410c', shape: 'rider', heading: state.heading });
  return list;
}

const RADIANS = Math.PI / 180;
// Metres east and north of `origin`: plenty exact over the few kilometres of a delivery.
/** @type {(origin: Place, p: Place) => [number, number]} */
const local = (origin, p) => [
  (p.lon - origin.lon) * RADIANS * 6371000 * Math.cos(origin.lat * RADIANS), (p.lat - origin.lat) * RADIANS * 6371000,
];
/** @type {(a: Place, b: Place) => number} */
const metres = (a, b) => Math.hypot(...local(a, b));
/** @type {(from: Place, to: Place) => number} */
const bearing = (from, to) => {
  const [east, north] = local(from, to);
  return ((Math.atan2(east, north) / RADIANS) + 360) % 360;
};
/** @type {(points: Place[]) => number} */
const routeMetres = (points) => points.slice(1).reduce((sum, p, i) => sum + metres(points[i], p), 0);

function drawRoute() {
  map.setRoute(state.route.length > 1 ? state.route : null);
}

// The road left from where the rider is: what lies behind the nearest point of the line is dropped, so the line
// shortens as they ride; far from the line (a turn the router did not expect) the server is asked for a new one.
/** @param {Place} position */
function trimRoute(position) {
  const points = state.route;
  if (points.length < 2) return;
  let best = { distance: Infinity, index: 0, at: points[0] };
  for (let i = 0; i < points.length - 1; i++) {
    const [bx, by] = local(position, points[i]);
    const [cx, cy] = local(position, points[i + 1]);
    const length2 = (cx - bx) ** 2 + (cy - by) ** 2;
    const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, -(bx * (cx - bx) + by * (cy - by)) / length2));
    const x = bx + t * (cx - bx);
    const y = by + t * (cy - by);
    const distance = Math.hypot(x, y);
    if (distance < best.distance) {
      const at = { lat: points[i].lat + t * (points[i + 1].lat - points[i].lat), lon: points[i].lon + t * (points[i + 1].lon - points[i].lon) };
      best = { distance, index: i, at };
    }
  }
  if (best.distance > OFF_ROUTE_M) {
    askForRouteSoon();
    return;
  }
  state.route = [best.at, ...points.slice(best.index + 1)];
  // The distance left follows the rider between the snapshots' road figures (every 30 s), like the line does.
  state.distanceM = routeMetres(state.route);
  drawRoute();
  showEta();
}

// A new road from the server, but not more than one ask in a few seconds however the fixes come.
let routeTimer = 0;
function askForRouteSoon() {
  if (routeTimer) return;
  const wait = Math.max(0, state.routeAskedAt + 3000 - Date.now());
  routeTimer = window.setTimeout(() => {
    routeTimer = 0;
    refreshEta();
  }, wait);
}

/** @param {unknown} encoded */
function useRoute(encoded) {
  if (typeof encoded !== 'string') return;
  try {
    state.route = decodePolyline(encoded);
  } catch (error) {
    state.route = [];
  }
  // Until the phone reports a heading the rider faces along the road they are on.
  if (state.heading == null && state.route.length > 1) state.heading = bearing(state.route[0], state.route[1]);
  drawRoute();
}

// The rider glides to each new fix over a second instead of jumping.
/** @param {Place} to */
function moveRider(to) {
  const from = state.shown || to;
  const start = performance.now();
  state.rider = to;
  const step = (/** @type {number} */ now) => {
    const t = Math.min(1, (now - start) / 1000);
    state.shown = { lat: from.lat + (to.lat - from.lat) * t, lon: from.lon + (to.lon - from.lon) * t };
    map.setMarkers(markers());
    if (t < 1 && state.rider === to) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
}

function showEta() {
  if (state.etaAt == null || state.ended) return;
  // At the door the status says it all: "Arriving in about 1 min · 10 m away" beside "Your rider has arrived!"
  // would contradict it.
  if (atTheDoor()) {
    etaLine.textContent = '';
    return;
  }
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
  state.routeAskedAt = Date.now();
  try {
    const response = await fetch(`/track/${encodeURIComponent(token)}/snapshot`, { cache: 'no-store' });
    if (!response.ok) return;
    const snapshot = await response.json();
    if (snapshot.etaSeconds != null) state.etaAt = Date.now() + snapshot.etaSeconds * 1000;
    if (snapshot.remainingDistanceM != null) state.distanceM = snapshot.remainingDistanceM;
    useRoute(snapshot.remainingRoute);
    showEta();
  } catch (error) {
    // Offline for a moment: the stream's reconnect says so; the next refresh catches up.
  }
}

/** @param {any} message one of the stream's messages (API.md: snapshot, location, stale, status, ended, …) */
function handle(message) {
  if (message.seq != null) state.seq = message.seq;
  switch (message.type) {
    case 'snapshot':
      // Opened before pickup: the delivery code (an OTP order's) is on the page the server makes from now on.
      if (body.dataset.codeLater === 'true') {
        location.reload();
        return;
      }
      state.stream = message.stream;
      state.vendor = message.vendor;
      state.destination = message.destination;
      state.waitingForPickup = false;
      state.status = message.status;
      showMap(true);
      statusLine.textContent = statusWords(message.status);
      if (message.etaSeconds != null) state.etaAt = Date.now() + message.etaSeconds * 1000;
      if (message.remainingDistanceM != null) state.distanceM = message.remainingDistanceM;
      if (message.rider) {
        state.rider = state.shown = { lat: message.rider.lat, lon: message.rider.lon };
        if (message.rider.headingDeg != null) state.heading = message.rider.headingDeg;
        if (message.stale && !atTheDoor()) {
          updatedLine.textContent = say(text.lastUpdated, { time: clock(message.rider.recordedAt) });
          updatedLine.hidden = false;
        }
      } else {
        etaLine.textContent = text.waiting;
      }
      state.routeAskedAt = Date.now();
      useRoute(message.remainingRoute);
      map.fit(markers());
      map.setMarkers(markers());
      showEta();
      break;
    case 'location': {
      updatedLine.hidden = true;
      const to = { lat: message.lat, lon: message.lon };
      // The phone's heading when it has one, else the way the rider moved since the last fix.
      if (message.headingDeg != null) state.heading = message.headingDeg;
      else if (state.rider && metres(state.rider, to) > 5) state.heading = bearing(state.rider, to);
      moveRider(to);
      trimRoute(to);
      if (Date.now() - state.routeAskedAt > ROUTE_REFRESH_MS) askForRouteSoon();
      break;
    }
    case 'stale':
      if (message.lastFixAt && !atTheDoor()) {
        updatedLine.textContent = say(text.lastUpdated, { time: clock(message.lastFixAt) });
        updatedLine.hidden = false;
      }
      break;
    case 'status':
      state.statusAt = message.occurredAt || null;
      state.status = message.status;
      if (atTheDoor()) updatedLine.hidden = true;
      showEta();
      statusLine.textContent = statusWords(message.status);
      break;
    case 'ended':
      state.ended = true;
      mapBox?.remove();
      mapLater?.remove();
      etaLine.textContent = '';
      updatedLine.hidden = true;
      document.getElementById('delivery-code')?.remove();
      statusLine.textContent = statusWords(message.status);
      // When it ended, in the customer's time.
      endedLine.textContent = say(text.endedAt, { status: statusWords(message.status), time: clock(state.statusAt || new Date().toISOString()) });
      endedLine.hidden = false;
      if (message.status === 'DELIVERED') showAfterDelivery();
      break;
    case 'resync':
      state.seq = null;
      break;
    case 'error': {
      // A revoked or unknown link says so in the customer's words, not the API's.
      const code = message.problem && message.problem.code;
      if (code === 'TRACKING_NOT_AVAILABLE') {
        // Not picked up yet: where the order is, in words, and no map; the page asks again in a while.
        state.waitingForPickup = true;
        showMap(false);
        if (message.problem.currentStatus) statusLine.textContent = statusWords(message.problem.currentStatus);
        break;
      }
      const linkGone = code === 'FORBIDDEN' || code === 'NOT_FOUND';
      statusLine.textContent = linkGone ? text.notFoundTitle : (message.problem && message.problem.title) || text.endedTitle;
      if (linkGone) {
        // The link no longer opens this order: nothing of it stays on screen.
        document.getElementById('map-box')?.remove();
        document.getElementById('rider')?.remove();
        etaLine.textContent = '';
        updatedLine.hidden = true;
      }
      state.ended = true;
      break;
    }
  }
}

// The proof and the rating form, as the server makes them for a delivered order's page, under what is shown.
async function showAfterDelivery() {
  try {
    const response = await fetch(location.href, { cache: 'no-store' });
    const page = new DOMParser().parseFromString(await response.text(), 'text/html');
    const section = page.getElementById('after-delivery');
    if (!section || document.getElementById('after-delivery')) return;
    const adopted = document.adoptNode(section);
    endedLine.after(adopted);
    setUpRating(adopted);
  } catch (error) {
    // The link's page, opened again, shows the same.
  }
}

// For Tests/Browser: the road left as drawn, and where the rider's marker points.
window.trackingRoute = () => ({
  metres: routeMetres(state.route), points: state.route.length, heading: state.heading,
  rider: state.shown ? map.toScreen(state.shown.lat, state.shown.lon) : null,
});

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
    if (state.waitingForPickup) {
      setTimeout(connect, BEFORE_PICKUP_RETRY_MS);
      return;
    }
    statusLine.textContent = text.reconnecting;
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 15000);
  };
}

setInterval(showEta, 15000);
setInterval(refreshEta, 30000);
connect();
