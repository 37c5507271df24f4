// @ts-check
// The dispatcher's page: a live map of the fleet (WS /api/v1/dispatch/stream moves the riders from
// GET /api/v1/riders), the open orders, the riders, the event feed, an order's panel, a rider's card and a new order
// form. This module signs in and out, keeps the stream and the lists fresh, and switches between the views; the
// others each do one of those jobs.
import { api, forgetToken, keepToken, onUnauthorised, REFRESH_KEY, token } from './dispatch-api.js';
import { claims, createSignIn } from '../Shared/sign-in.js';

const { wireSignIn, resetSignIn, refreshAccess, claimRenewal, hasRefreshToken, refusalReason, logout } = createSignIn({
  refreshKey: REFRESH_KEY, roles: ['dispatcher', 'admin'],
  wrongRole: 'This phone belongs to a rider or a store, not to a dispatcher or an admin.',
});
import { closeCreate, dropPin, keepDraft, openCreate, placingPin, restoreDraft, wireCreate } from './dispatch-create.js';
import { wireDecisions } from './dispatch-decisions.js';
import { addLine, clearFeed, note, replayLastHour, takeEvent } from './dispatch-feed.js';
import { drawMarkers, loadFleet, moveRider, renderRiders, rider, riderAt } from './dispatch-fleet.js';
import { closeOrder, openOrder, orderChanged, selectedOrder, wireOrderPanel } from './dispatch-order-panel.js';
import { keepOrder, loadOpenOrders, renderOrders, renderRiderChoice, wireSearch } from './dispatch-orders.js';
import { forgetInspections, forgetRounds, inspectOpenOrders } from './dispatch-problems.js';
import { closeRiderCard, openRiderCard, renderCard, shownRider } from './dispatch-rider-card.js';
import { $, FINAL, on, refreshTimes, state } from './dispatch-state.js';
import { TileMap } from '../Shared/map.js';
import { openPeople, wirePeople } from './dispatch-people.js';

const MONACO = [{ lat: 43.745, lon: 7.435 }, { lat: 43.726, lon: 7.412 }];
const TILE = 512;
let socket = null;
let droppedAt = 0; // when the stream last went away, until it is back
let refresher = 0;
let ticker = 0;
let renewTimer = 0;
/** @type {Promise<boolean> | null} */
let renewing = null;
let view = 'orders';
let lastList = 'orders';
// Stream messages wait here for the next frame: a busy fleet is drawn once per frame, not once per fix.
let pending = [];
let frameRequested = false;
// Where each named rider's marker is on the map (CSS pixels in the canvas): markers have no words, so the browser
// test asks here where to tap.
window.dispatchMarkers = () => [...state.riders.values()].filter((r) => r.lat != null && state.map)
  .map((r) => ({ name: r.name, at: state.map.toScreen(r.lat, r.lon) }));

// ---- Views: three lists behind tabs, and the panels that take their place (order, rider, new order).

function show(next) {
  view = next;
  if (['orders', 'riders', 'feed', 'people'].includes(next)) lastList = next;
  for (const name of ['orders', 'riders', 'feed', 'people', 'order', 'rider']) $(`view-${name}`).hidden = name !== next;
  $('create').hidden = next !== 'create';
  $('side').scrollTop = 0;
  for (const tab of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.tabs [role=tab]'))) {
    tab.setAttribute('aria-selected', String(tab.dataset.view === next));
  }
  if (next === 'riders') renderRiders();
  if (next === 'people') openPeople();
}

// Back to the fleet: the panel closes, its drawings leave the map, the map shows every rider again.
function closePanels() {
  if (selectedOrder()) closeOrder();
  if (shownRider()) closeRiderCard();
  if (view === 'create') closeCreate();
  state.pins = [];
  state.map.setRoute(null);
  show(lastList);
  fitFleet();
  drawMarkers();
}

// The whole operation in view: every rider seen, and the stores and doors of the open orders.
function fitFleet() {
  const places = [...state.riders.values()].filter((r) => r.lat != null);
  for (const id of state.open) {
    const order = state.orders.get(id);
    if (order) places.push(order.vendor.location, order.customer.location);
  }
  state.map.fit(places.length ? places : MONACO);
}

function openOrderView(orderId) {
  if (shownRider()) closeRiderCard();
  if (view === 'create') closeCreate();
  show('order');
  bringIntoView('view-order');
  openOrder(orderId).then(drawMarkers);
}

function openRiderView(riderId) {
  if (selectedOrder()) closeOrder();
  if (view === 'create') closeCreate();
  state.pins = [];
  show('rider');
  bringIntoView('view-rider');
  openRiderCard(riderId).then(drawMarkers);
}

// On a phone the lists are below the map: a panel that opens there is scrolled to.
function bringIntoView(id) {
  const box = $(id).getBoundingClientRect();
  if (box.top > window.innerHeight * 0.6 || box.top < 0) $('side').scrollIntoView({ behavior: 'smooth', block: 'start' });
}

// ---- Keeping the lists fresh: lists are drawn at most a few times a second, however busy the stream.

let listsTimer = 0;
function renderLists() {
  if (listsTimer) return;
  listsTimer = setTimeout(() => {
    listsTimer = 0;
    renderOrders();
    if (view === 'riders') renderRiders();
    if (view === 'rider') renderCard();
  }, 200);
}

const orderReads = new Map();
// An event changed the order: read it once the burst is over, and keep the list and the panel in step.
function readOrderSoon(orderId) {
  clearTimeout(orderReads.get(orderId));
  orderReads.set(orderId, setTimeout(async () => {
    orderReads.delete(orderId);
    try {
      keepOrder(await api('GET', `/api/v1/orders/${orderId}`));
      renderLists();
    } catch (error) {
      console.warn('order read', error);
    }
  }, 300));
}

function applyEvent(event) {
  takeEvent(event, { live: true });
  const riderId = event.data && event.data.riderId;
  if (riderId && event.type === 'OrderAssigned') rider(riderId).availability = 'ON_TASK';
  const finished = FINAL.includes(event.status) || ['RETURNED_TO_STORE', 'CANCELLED'].includes(event.status);
  if (finished || event.type === 'OrderReassigned') {
    const order = state.orders.get(event.orderId);
    const who = (event.data && event.data.fromRiderId) || (order && order.assignedRiderId);
    if (who && state.riders.has(who)) rider(who).availability = 'ONLINE';
  }
  readOrderSoon(event.orderId);
  orderChanged(event.orderId);
}

function apply(data) {
  if (data.type === 'riderLocation') moveRider(data);
  else if (data.type === 'event') applyEvent(data.event);
  // A refusal is followed by the stream's close, whose code decides (an expired token is renewed, not signed out);
  // anything else the server objected to is worth a line.
  else if (data.type === 'error' && !['UNAUTHENTICATED', 'FORBIDDEN'].includes(data.problem && data.problem.code)) {
    note(`The live stream said: ${(data.problem && data.problem.title) || 'an error'}`, true);
  }
}

function flush() {
  frameRequested = false;
  const batch = pending;
  pending = [];
  for (const text of batch) {
    try {
      apply(JSON.parse(text));
    } catch (error) {
      console.warn('unreadable dispatch message', error);
    }
  }
  drawMarkers();
}

// A new stream with the current token. After a renewal the old stream stays open until the new one is: nothing is
// missed in between, and the feed drops what both delivered (events are keyed by id).
function connect() {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const previous = socket;
  const next = new WebSocket(`${scheme}//${location.host}/api/v1/dispatch/stream`, ['bearer', token()]);
  socket = next;
  next.onopen = () => {
    if (previous) {
      previous.onclose = null;
      previous.close();
    }
    $('connection').textContent = 'Live';
    // Back after a drop: the events of the gap come from the log, so the feed and the problems miss nothing.
    if (droppedAt) {
      const from = droppedAt - 5000;
      droppedAt = 0;
      replayLastHour(from).catch((error) => note(`Events missed while disconnected: ${error.message}`, true));
    }
  };
  next.onmessage = (message) => {
    pending.push(message.data);
    if (!frameRequested) {
      frameRequested = true;
      requestAnimationFrame(flush);
    }
  };
  next.onclose = (event) => {
    // A stream already replaced by a newer one ends quietly.
    if (socket !== next) return;
    $('connection').textContent = 'Disconnected';
    if (!droppedAt) droppedAt = Date.now();
    // 4401: the token ended (renewed with the refresh token, then the stream comes back and replays the gap); 4403:
    // this person may not watch the fleet; anything else (4429 after falling behind, 1001 on a restart) reconnects.
    if (event.code === 4401) tokenRefused();
    else if (event.code === 4403) signOut('This sign-in may not watch the fleet (a dispatcher’s or an admin’s only).');
    else if (token()) setTimeout(() => { if (token() && socket === next) connect(); }, 2000);
  };
}

// ---- Staying signed in: the access token lasts minutes; the refresh token renews it before it ends, so the stream
// never closes on an expired token and the open panels, the feed and a half-typed order stay. A development link's
// token has no refresh token: it lasts what it lasts.

function scheduleRenewal() {
  clearTimeout(renewTimer);
  const expires = (claims(token()) || {}).exp;
  if (!expires || !hasRefreshToken()) return;
  const left = expires * 1000 - Date.now();
  // A minute early, or a fifth of a short token's life.
  const early = Math.min(60_000, left / 5);
  renewTimer = setTimeout(renew, Math.max(1000, left - early));
}

// One renewal at a time, whoever asks (the timer, a refused request, the stream's 4401): true once a new token is
// in hand. A refused renewal signs out with the server's reason; an unreachable server is asked again shortly.
function renew() {
  if (!renewing) renewing = renewNow().finally(() => { renewing = null; });
  return renewing;
}

async function renewNow() {
  const renewed = await refreshAccess();
  if (typeof renewed === 'string') {
    keepToken(renewed);
    resume();
    return true;
  }
  if (renewed && renewed.network) {
    $('connection').textContent = 'Reconnecting…';
    clearTimeout(renewTimer);
    renewTimer = setTimeout(renew, 5000);
    return false;
  }
  const why = refusalReason();
  signOut(`Your sign-in has ended${why ? `: ${why}` : ' (expired or revoked): sign in again'}`);
  return false;
}

// The server refused the token: renewed once in a while, not in a loop (a token refused again right after its
// renewal was revoked, not expired).
function tokenRefused() {
  // Requests still under way when the page signed out answer 401 too: the reason shown stays the first one.
  if (!token()) return Promise.resolve(false);
  if (renewing) return renewing;
  if (claimRenewal()) return renew();
  signOut('Your sign-in has ended (expired or revoked): sign in again');
  return Promise.resolve(false);
}

// With a new token: the stream comes back on it and replays what it missed, the lists are read again; the panels
// stay as the person left them.
function resume() {
  scheduleRenewal();
  if (!droppedAt) droppedAt = Date.now();
  connect();
  refresh();
}

async function refresh() {
  try {
    await loadFleet();
    await loadOpenOrders();
  } catch (error) {
    if (error.status === 403) signOut('This token is not a dispatcher’s or an admin’s');
    else note(`Could not refresh the lists: ${error.message}`, true);
  }
}

async function start() {
  $('sign-in').hidden = true;
  $('app').hidden = false;
  $('header-actions').hidden = false;
  $('sign-in-error').textContent = '';
  clearFeed();
  if (!state.map) {
    state.map = new TileMap($('map'));
    state.map.enablePanning(() => {});
  }
  state.map.fit(MONACO);
  if (socket) {
    socket.onclose = null;
    socket.close();
  }
  droppedAt = 0;
  connect();
  show('orders');
  await refresh();
  if (!token()) return;
  fitFleet();
  drawMarkers();
  try {
    await replayLastHour();
  } catch (error) {
    if (token()) note(`The last hour’s events could not be read: ${error.message}`, true);
  }
  inspectOpenOrders().then(renderLists);
  scheduleRenewal();
  if (restoreDraft()) {
    show('create');
    note('Your unsent new order was kept while you signed in again: check it and create it.');
  }
  clearInterval(refresher);
  refresher = setInterval(refresh, 10_000);
  clearInterval(ticker);
  // Times since the last fix and in each state move on by themselves.
  ticker = setInterval(() => {
    drawMarkers();
    renderLists();
    refreshTimes();
  }, 5000);
}

function signOut(reason, isError = true) {
  // What the person was typing comes back after signing in again (not after choosing to sign out).
  const kept = isError && view === 'create' && keepDraft();
  forgetToken();
  clearInterval(refresher);
  clearInterval(ticker);
  clearTimeout(renewTimer);
  if (socket) {
    socket.onclose = null;
    socket.close();
    socket = null;
  }
  if (selectedOrder()) closeOrder();
  if (shownRider()) closeRiderCard();
  closeCreate();
  forgetRounds();
  forgetInspections();
  state.riders.clear();
  state.orders.clear();
  state.refs.clear();
  state.open = new Set();
  state.problems.clear();
  clearFeed();
  resetSignIn();
  $('connection').textContent = 'Signed out';
  const sentence = /[.!?]$/.test(reason) ? reason : `${reason}.`;
  $('sign-in-error').textContent = kept ? `${sentence} Your unsent new order is kept for when you are back.` : reason;
  $('sign-in-error').className = isError ? 'error' : 'hint';
  $('app').hidden = true;
  $('header-actions').hidden = true;
  $('sign-in').hidden = false;
}

// ---- The map: drag to pan, buttons or the wheel to zoom, tap a rider for their card or drop a pin.

function zoomBy(step) {
  const map = state.map;
  const z = Math.max(11, Math.min(18, map.z + step));
  if (z === map.z || !map.center) return;
  const scale = 2 ** (z - map.z);
  map.center = [map.center[0] * scale, map.center[1] * scale];
  map.z = z;
  map.draw();
}

// The place under a point of the map (the inverse of map.js's Web Mercator projection).
function placeAt(x, y) {
  const map = state.map;
  const canvas = $('map');
  const n = 2 ** map.z;
  const wx = map.center[0] + (x - canvas.clientWidth / 2) / TILE;
  const wy = map.center[1] + (y - canvas.clientHeight / 2) / TILE;
  const lon = (wx / n) * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * wy) / n))) * 180) / Math.PI;
  return { lat, lon };
}

function wireMap() {
  const canvas = $('map');
  let down = null;
  canvas.addEventListener('pointerdown', (event) => { down = [event.clientX, event.clientY]; });
  canvas.addEventListener('click', (event) => {
    // A drag that pans the map is not a tap.
    if (down && Math.hypot(event.clientX - down[0], event.clientY - down[1]) > 6) return;
    const box = canvas.getBoundingClientRect();
    const x = event.clientX - box.left;
    const y = event.clientY - box.top;
    if (placingPin()) {
      const place = placeAt(x, y);
      dropPin(place.lat, place.lon);
      return;
    }
    const hit = riderAt(x, y);
    if (hit) openRiderView(hit.id);
  });
  $('zoom-in').addEventListener('click', () => zoomBy(1));
  $('zoom-out').addEventListener('click', () => zoomBy(-1));
}

// ---- Wiring.

on('open-order', openOrderView);
on('open-rider', openRiderView);
on('pins', drawMarkers);
on('note', (text, alert) => note(text, alert));
on('problems', (orderId) => { renderLists(); orderChanged(orderId); });
on('open-orders', renderLists);
on('order-read', (order) => { keepOrder(order); renderLists(); });
on('orders-changed', () => { loadOpenOrders().catch((error) => note(`Orders: ${error.message}`, true)); });
on('fleet', () => { renderLists(); renderRiderChoice(); });
on('order-created', (order) => {
  keepOrder(order);
  closeCreate();
  addLine({ key: `created-${order.orderId}`, at: Date.now(), text: `You created ${order.externalRef}`, orderId: order.orderId });
  openOrderView(order.orderId);
});
// A request refused for its token: renewed (the request is then sent again), or signed out with the reason.
onUnauthorised(tokenRefused);

for (const tab of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.tabs [role=tab]'))) {
  tab.addEventListener('click', () => {
    if (['order', 'rider', 'create'].includes(view)) closePanels();
    show(tab.dataset.view);
  });
}
for (const button of document.querySelectorAll('[data-close]')) button.addEventListener('click', closePanels);
$('new-order').addEventListener('click', () => {
  if (selectedOrder()) closeOrder();
  if (shownRider()) closeRiderCard();
  state.map.setRoute(null);
  openCreate();
  show('create');
  bringIntoView('create');
  $('customer-name').focus({ preventScroll: true });
});
$('sign-out').addEventListener('click', () => {
  logout(token());
  signOut('You have signed out.', false);
});
wireSignIn((accessToken) => {
  keepToken(accessToken);
  start();
});
wireMap();
wireOrderPanel();
wireDecisions();
wireCreate();
wireSearch();
wirePeople();

// A link with #token=… opened on this page already (the fragment changes, the page does not reload).
window.addEventListener('hashchange', () => {
  if (location.hash.includes('token=') && token()) start();
});
if (token()) start();
else {
  // A reload or a new window: the refresh token signs in again without a code.
  refreshAccess().then((renewed) => {
    if (typeof renewed === 'string' && !token()) {
      keepToken(renewed);
      start();
    }
  });
}
