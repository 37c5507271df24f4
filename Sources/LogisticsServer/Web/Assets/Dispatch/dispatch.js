// The dispatcher's live map: the fleet from GET /api/v1/riders, every rider's fixes and every order event from
// WS /api/v1/dispatch/stream, the open orders, an order's timeline and the roads driven for it, and offering or
// cancelling it. The token comes
// from the sign-in box or the URL fragment (#token=…, never sent to the server) and is kept in sessionStorage only.
import { TileMap, decodePolyline } from './map.js';

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
    if (event.type === 'DispatchEscalated') {
      // Automatic dispatch gave up on this order: the one line a dispatcher must act on.
      feed(`Needs a rider · order ${event.orderId.slice(0, 8)}: ${(event.data && event.data.reason) || 'automatic dispatch found nobody'}`);
    } else {
      feed(`${event.type}${event.status ? ' ' + event.status : ''} · order ${event.orderId.slice(0, 8)}`);
    }
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
  await showPath(order);
}

// The fixes stored for the order, matched to the roads (GET …/path), drawn on the map and summed up in the timeline.
async function showPath(order) {
  const item = document.createElement('li');
  item.className = 'path';
  $('timeline').append(item);
  let path;
  try {
    path = await api('GET', `/api/v1/orders/${order.orderId}/path`);
  } catch (error) {
    item.textContent = `Roads driven: ${error.message}`;
    return;
  }
  if (selected !== order) return;
  // Stretch by stretch: where no road joins two fixes (a jump, GPS lost), nothing is drawn between them.
  const points = [];
  const congestion = [];
  for (const stretch of path.stretches) {
    const piece = decodePolyline(stretch.geometry);
    if (points.length && piece.length) congestion.push('GAP');
    piece.forEach((point, index) => {
      if (index > 0) congestion.push('UNKNOWN');
      points.push(point);
    });
  }
  map.setRoute(points, congestion);
  if (points.length > 1) map.fit(points);
  const metres = path.stretches.reduce((sum, stretch) => sum + stretch.distanceM, 0);
  const unmatched = path.unmatched.reduce((sum, run) => sum + run.fixCount, 0);
  item.textContent = path.fixCount === 0
    ? 'Roads driven: no fixes stored yet'
    : `Roads driven: ${(metres / 1000).toFixed(1)} km matched from ${path.fixCount} fixes`
      + (unmatched ? ` (${unmatched} off the roads)` : '');
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
    // 4401 and 4403 are about the token; anything else (4429 after falling behind, 1001 on a restart) reconnects.
    if (event.code === 4401 || event.code === 4403) signOut('This token is not allowed here');
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
