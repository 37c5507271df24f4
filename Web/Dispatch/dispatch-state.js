// @ts-check
// What the dispatcher's page modules share: the fleet, the orders seen, the problems waiting for a decision, and
// the words the page uses for statuses. The page holds no data of its own: all of it comes from the API.

/** @typedef {import('../Shared/map.js').TileMap} TileMap */
/** @typedef {import('../Shared/map.js').Marker} Marker */
/**
 * A rider as the page knows them: from GET /api/v1/riders, moved by the stream's fixes. `position` is the server's
 * word on the last fix: FRESH, STALE (none for staleAfterS) or NONE (no fix yet).
 * @typedef {{id: string, name: string | null, availability: string, position: string, lat: number | null,
 *   lon: number | null, heading: number | null, fixAt: number | null, suspended?: boolean,
 *   currentOrders: {orderId: string, externalRef?: string | null, status?: string}[], deliveriesToday: number,
 *   phone?: string, vehicle?: string}} FleetRider
 */
/**
 * What needs the dispatcher on an order: a rider's problem (its kind in words, the note once read), a locked code, …
 * @typedef {{kind: string, text: string, note?: string | null, at: number, eventId?: string, issueId?: string,
 *   hasNote?: boolean}} Problem
 */

export const state = {
  /** @type {TileMap | null} */
  map: null,
  /** @type {Map<string, FleetRider>} riderId → the rider */
  riders: new Map(),
  staleAfterS: 90, // the fleet's positionStaleAfterS, as the server last said it
  /** @type {Map<string, any>} orderId → the order as the API last gave it (open ones, and any the page looked at) */
  orders: new Map(),
  /** @type {Map<string, string>} orderId → reference, from the event log, for orders the page has not read */
  refs: new Map(),
  /** @type {Set<string>} ids of the open orders, as the last full read found them, plus those changed since */
  open: new Set(),
  /** @type {Map<string, Problem>} orderId → what needs the dispatcher */
  problems: new Map(),
  /** @type {Map<string, string>} orderId → the current rider's last task status (ACCEPTED, ARRIVED_AT_STORE, …) */
  legs: new Map(),
  /** @type {Marker[]} extra markers a panel shows (store, customer, a dropped pin) */
  pins: [],
};

// The page's element of that id, typed any: callers use it as the input, form or dialog they know it is.
/** @type {(id: string) => any} */
export const $ = (id) => document.getElementById(id);
export const FINAL = ['DELIVERED', 'CANCELLED', 'FAILED', 'RETURNED'];

/** @type {Record<string, string>} */
export const ORDER_WORDS = {
  PENDING_VENDOR_ACCEPTANCE: 'Waiting for the store', PREPARING: 'Being prepared', READY_FOR_PICKUP: 'Ready for pickup',
  RIDER_ASSIGNED: 'Rider on the way to the store', IN_TRANSIT: 'On its way', ARRIVED_AT_DESTINATION: 'At the customer',
  RETURNING_TO_STORE: 'Going back to the store', DELIVERED: 'Delivered', CANCELLED: 'Cancelled', FAILED: 'Failed',
  RETURNED: 'Returned to the store',
};

// RIDER_ASSIGNED covers a rider riding to the store and one standing at its counter: the badge says which, from the
// rider's own last step (the same event the timeline shows), and only what it knows.
/** @type {Record<string, string>} */
const LEG_WORDS = { ACCEPTED: 'Rider on the way to the store', ARRIVED_AT_STORE: 'Rider at the store' };

/** @param {{orderId: string, status: string}} order */
export function orderWords(order) {
  if (order.status === 'RIDER_ASSIGNED') return LEG_WORDS[state.legs.get(order.orderId) || ''] || 'Rider assigned';
  return ORDER_WORDS[order.status] || order.status;
}

// Keeps the current rider's last step from an event (stream or log, normalised); true when it changed.
/** @param {{orderId: string, type: string, status?: string | null}} event */
export function followLeg(event) {
  const before = state.legs.get(event.orderId);
  if (event.type === 'OrderAssigned') state.legs.set(event.orderId, 'ACCEPTED');
  else if (event.type === 'OrderReassigned') state.legs.delete(event.orderId);
  else if (event.type === 'DeliveryStatusUpdated' && event.status) state.legs.set(event.orderId, event.status);
  return state.legs.get(event.orderId) !== before;
}

// The problems riders report (DeliveryIssueType), in the dispatcher's words.
/** @type {Record<string, string>} */
export const ISSUE_WORDS = {
  CUSTOMER_UNAVAILABLE: 'Customer unavailable', ADDRESS_NOT_FOUND: 'Address not found', WRONG_ADDRESS: 'Wrong address',
  STORE_CLOSED: 'Store closed', ORDER_NOT_READY: 'Order not ready', VEHICLE_TROUBLE: 'Vehicle trouble',
  UNSAFE: 'Unsafe to continue', OTHER: 'Other problem',
};

/** @type {Record<string, string>} */
export const OFFER_WORDS = {
  OPEN: 'waiting for an answer', ACCEPTED: 'accepted', DECLINED: 'declined', EXPIRED: 'expired',
  SUPERSEDED: 'offered again', CANCELLED: 'withdrawn',
};

/** @param {string | {orderId: string, externalRef?: string | null} | null | undefined} orderOrId */
export function reference(orderOrId) {
  const order = typeof orderOrId === 'string' ? state.orders.get(orderOrId) : orderOrId;
  if (order && order.externalRef) return order.externalRef;
  const id = typeof orderOrId === 'string' ? orderOrId : order && order.orderId;
  const known = id && state.refs.get(id);
  if (known) return known;
  return id ? `order ${id.slice(0, 8)}` : 'an order';
}

/** @param {string | null | undefined} id */
export function riderName(id) {
  if (!id) return 'a rider';
  const rider = state.riders.get(id);
  return (rider && rider.name) || `rider ${id.slice(0, 8)}`;
}

// What a rider is doing, in one word: offline, free, on a task, stale GPS, or never seen. Stale is the server's word
// (GET /api/v1/riders: `position`, past `positionStaleAfterS`), never a clock of the page's own: an idle rider's app
// sends a fix every 30 s, and a page that called a minute stale flipped such a rider between Free and Stale GPS.
/** @param {FleetRider} rider */
export function riderState(rider) {
  if (rider.availability === 'OFFLINE') return 'offline';
  if (rider.position === 'NONE' || rider.fixAt == null) return 'unseen';
  if (rider.position === 'STALE') return 'stale';
  return rider.availability === 'ON_TASK' ? 'task' : 'free';
}

// What "Stale GPS" means, from the server's own time: "no fix for over 90 s".
export function staleMeaning() {
  return `no fix for over ${state.staleAfterS} s`;
}

/** @type {Record<string, string>} */
export const RIDER_STATE_WORDS = {
  offline: 'Offline', free: 'Free', task: 'On a task', stale: 'Stale GPS', unseen: 'No position yet',
};
/** @type {Record<string, string>} */
export const RIDER_COLOURS = {
  task: '#c2410c', free: '#1f7a4d', offline: '#6b7280', stale: '#7c3aed', unseen: '#6b7280',
};

// "12 s", "4 min", "2 h 5 min": how long ago, for a list read at a glance.
/**
 * @param {number} ms
 * @param {number} [now]
 */
export function since(ms, now = Date.now()) {
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

/** @param {string | number | Date} value */
export function timeOfDay(value) {
  return new Date(value).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** @param {number} metres */
export function distance(metres) {
  return metres < 1000 ? `${Math.round(metres)} m` : `${(metres / 1000).toFixed(1)} km`;
}

// Straight-line metres between two points, for ranking nearby riders (the server ranks by road when it offers).
/**
 * @param {{lat: number, lon: number}} a
 * @param {{lat: number, lon: number}} b
 */
export function metresBetween(a, b) {
  const dLat = (a.lat - b.lat) * 111_320;
  const dLon = (a.lon - b.lon) * 111_320 * Math.cos((b.lat * Math.PI) / 180);
  return Math.hypot(dLat, dLon);
}

// A DOM element with properties and children; strings become text (never HTML), so names cannot inject markup.
/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any>} [props]
 * @param {...any} children strings, numbers, nodes, arrays of them; null and false are left out
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value == null || value === false) continue;
    if (key === 'class') element.className = value;
    else if (key === 'onclick') element.addEventListener('click', value);
    else if (key in element && key !== 'list') /** @type {any} */ (element)[key] = value;
    else element.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child == null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

// Who else wants to know when something changed (the modules register; the page wires them at start).
/** @type {Map<string, ((...values: any[]) => void)[]>} */
const listeners = new Map();
/**
 * @param {string} name
 * @param {(...values: any[]) => void} handler
 */
export function on(name, handler) {
  const handlers = listeners.get(name) || [];
  handlers.push(handler);
  listeners.set(name, handlers);
}
/**
 * @param {string} name
 * @param {...any} values
 */
export function emit(name, ...values) {
  for (const handler of listeners.get(name) || []) handler(...values);
}

// Draws a list row by row, keyed: a row whose content is unchanged stays the same element in place. Lists redrawn
// whole every few seconds lost a dispatcher's click whenever the row under the pointer was replaced between the
// press and the release.
// `update` (optional) patches a kept row in place, for what changes too often to rebuild it for (a time).
/**
 * @template T
 * @param {HTMLElement} list
 * @param {T[]} items
 * @param {(item: T) => string} key
 * @param {(item: T) => string} signature
 * @param {(item: T) => HTMLElement} build
 * @param {((node: HTMLElement, item: T) => void) | null} [update]
 */
export function renderRows(list, items, key, signature, build, update = null) {
  const rows = /** @type {HTMLElement[]} */ ([...list.children]);
  const old = new Map(rows.map((node) => [node.dataset.key, node]));
  const next = items.map((item) => {
    const id = key(item);
    const sig = signature(item);
    const known = old.get(id);
    if (known && known.dataset.sig === sig) {
      if (update) update(known, item);
      return known;
    }
    const fresh = build(item);
    fresh.dataset.key = id;
    fresh.dataset.sig = sig;
    return fresh;
  });
  next.forEach((node, index) => {
    if (list.children[index] !== node) list.insertBefore(node, list.children[index] || null);
  });
  while (list.children.length > next.length) /** @type {ChildNode} */ (list.lastChild).remove();
}

// A span that says how long ago `ms` was, kept current by refreshTimes (text only: the row stays the same element).
/** @param {number} ms */
export function ago(ms) {
  return el('span', { 'data-since': String(ms) }, since(ms));
}

// Points a row's time at a new moment (a rider's newer fix) without rebuilding the row.
/**
 * @param {Element} node
 * @param {number | null} ms
 */
export function moveTime(node, ms) {
  const span = /** @type {HTMLElement | null} */ (node.querySelector('[data-since]'));
  if (span && ms != null) span.dataset.since = String(ms);
}

/** @param {ParentNode} [root] */
export function refreshTimes(root = document) {
  const now = Date.now();
  for (const span of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll('[data-since]'))) {
    const text = since(Number(span.dataset.since), now);
    if (span.textContent !== text) span.textContent = text;
  }
}
