// @ts-check
// What the rider app's screens share: the shape of its state (kept in the store rider.js creates and gives the
// modules), what the modules are given, the copy kept in localStorage for an offline start, and the task as the
// rider sees it. Nothing here holds state of its own.
import { config } from '../rider-i18n.js';

// The page's element of that id, typed any: callers use it as the input, form or dialog they know it is.
/** @type {(id: string) => any} */
export const $ = (id) => document.getElementById(id);

/**
 * @typedef {{lat: number, lon: number}} LatLon
 * @typedef {{name: string, address: string, location: LatLon}} Place
 * @typedef {{riderId: string, name: string | null, availability: string, activeTaskId?: string | null}} Profile
 */

/**
 * The rider's task as the server sends it; what the page relies on, the rest as it comes.
 * @typedef {object} Task
 * @property {string} taskId
 * @property {string} [orderId]
 * @property {string} status
 * @property {string[]} allowedNext The statuses the rider may move it to now, the server's word.
 * @property {string} [externalRef]
 * @property {Place} vendor
 * @property {Place & {phone?: string, phoneMasked?: string}} customer
 * @property {string} [notes]
 * @property {string} [podType]
 * @property {Record<string, any>} [proofOfDelivery]
 * @property {number} [geofenceRadiusM]
 * @property {any[]} [stops] With batching, every stop of the trip.
 * @property {any} [nextStop]
 */

/**
 * An offer on the phone: the server's offer, when it runs out here, and what its screen says about it.
 * @typedef {Readonly<{offer: {offerId: string} & Record<string, any>, deadline: number, totalMs: number, message: string}>} OfferEntry
 */

/**
 * What the screens share. Replaced, never changed in place: the store's `update` is the only way in.
 * @typedef {object} RiderState
 * @property {string | null} token The access token; null when signed out.
 * @property {string | null} riderId
 * @property {Profile | null} profile Null until the server (or the cache) has told who the rider is.
 * @property {Task | null} task The server's task; `displayTask` applies the taps still in the queue.
 * @property {ReadonlyMap<string, OfferEntry>} offers By offer id.
 * @property {ReadonlySet<string>} dismissed Offers gone from the screen, which a list fetched later must not bring back.
 * @property {string | null} accepting The offer whose Accept is on its way (the other offers wait for its answer).
 * @property {boolean} availabilityBusy A Go Online / Go Offline on its way.
 * @property {string | null} screen The screen shown: loading, sign-in, home, done, offer or task.
 * @property {{how: string, ref: string, until: number} | null} finished The end of a delivery, shown until `until`.
 * @property {{taskId: string, type: string} | null} reported The problem reported on the task, which allows Mark Failed.
 * @property {number} refreshing The latest refresh's ticket: an older answer arriving late is not adopted.
 * @property {number} taskVersion Moves on with every change to the task made here, so a refresh begun before it does
 *   not undo it.
 * @property {boolean} noServiceWorker
 * @property {import('../Navigation/rider-nav.js').NavigationView | null} navigation Made on first use.
 * @property {boolean} photoBusy A photo being shrunk.
 * @property {boolean} waitingForLocation A tap waits in the queue for a first fix.
 * @property {boolean} starting Until the queue is open and the token read.
 * @property {boolean} renewWhenOnline Started offline with only a refresh token.
 * @property {{orderId: string, key: string} | null} orderNews What the server last told the rider about an order (its
 *   catalog key), said when the task's end is seen.
 * @property {number} offersWanted Moves on when a module wants the offers fetched (the offers module follows it).
 * @property {number} refreshWanted Moves on when a module wants the server's view of the rider again (the session
 *   follows it).
 * @property {{status?: number, detail?: string, title?: string} | null} refusal A token the server refused, for the
 *   session to renew or sign out.
 */

/** @typedef {import('../rider-store.js').Store<RiderState>} RiderStore */

/**
 * What rider.js gives the modules: the store and the services.
 * @typedef {object} Rider
 * @property {RiderStore} store
 * @property {ReturnType<typeof import('./rider-api.js').createApi>} api
 * @property {import('./rider-geo.js').Geo} geo
 * @property {import('./rider-fixes.js').FixUploader} fixes
 * @property {import('./rider-queue.js').TapQueue} queue
 */

/** @returns {RiderState} */
export function initialState() {
  return {
    token: null, riderId: null, profile: null, task: null, offers: new Map(), dismissed: new Set(), accepting: null,
    availabilityBusy: false, screen: null, finished: null, reported: null, refreshing: 0, taskVersion: 0,
    noServiceWorker: false, navigation: null, photoBusy: false, waitingForLocation: false, starting: false,
    renewWhenOnline: false, orderNews: null, offersWanted: 0, refreshWanted: 0, refusal: null,
  };
}

// The task's statuses as the server has them (RiderPage.swift puts them in the page): what may follow each, where the
// rider heads, whether it ends the task. A task brings its own allowedNext; these serve a status the queue's taps have
// moved on the phone before the server heard of it.
/** @typedef {{allowedNext: string[], nextStop?: 'STORE' | 'CUSTOMER', isFinal: boolean}} StatusRule */
/** @type {Record<string, StatusRule>} */
const STATUSES = config.statuses || {};

/**
 * Whether a task in this status has ended.
 * @param {string} status
 */
export function isFinal(status) {
  return Boolean(STATUSES[status] && STATUSES[status].isFinal);
}

/**
 * Where a task in this status takes the rider: 'STORE', 'CUSTOMER', or null once it has ended.
 * @param {string} status
 */
export function nextStopKind(status) {
  return (STATUSES[status] && STATUSES[status].nextStop) || null;
}

export function show(element, visible) {
  element.hidden = !visible;
}

/** @param {string | null} riderId */
function cacheKey(riderId) {
  return `riderCache:${riderId}`;
}

/** @param {Readonly<RiderState>} state */
function saveCache(state) {
  if (!state.riderId) return;
  try {
    localStorage.setItem(cacheKey(state.riderId), JSON.stringify({ profile: state.profile, task: state.task, reported: state.reported }));
  } catch (error) {
    // Storage full or refused: the page works on, only an offline start would lack the task.
  }
}

// The copy follows every change to what it holds, so no module has to remember it. Signing out leaves it for the
// next start of the same rider.
/** @param {RiderStore} store */
export function keepCache(store) {
  store.subscribe((state, previous) => {
    if (!state.token) return;
    if (state.profile !== previous.profile || state.task !== previous.task || state.reported !== previous.reported) {
      saveCache(state);
    }
  });
}

/**
 * @param {string | null} riderId
 * @returns {{profile?: Profile, task?: Task, reported?: RiderState['reported']} | null}
 */
export function loadCache(riderId) {
  try {
    return JSON.parse(localStorage.getItem(cacheKey(riderId)) || 'null');
  } catch (error) {
    return null;
  }
}

export function point(fix) {
  return fix ? { lat: fix.lat, lon: fix.lon, accuracyM: Math.max(0, fix.accuracyM ?? 10) } : null;
}

export function metres(a, b) {
  const rad = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2
    + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lon - a.lon) * rad) / 2) ** 2;
  return 2 * 6371008.8 * Math.atan2(Math.sqrt(h), Math.sqrt(1 - h));
}

// --- The task as the rider sees it: the server's, with the taps still waiting in the queue applied -------------

/**
 * @param {import('./rider-queue.js').TapQueue} queue
 * @param {string} taskId
 */
export function pendingFor(queue, taskId) {
  return queue.mine().filter((item) => item.taskId === taskId);
}

function nextStopFor(task, status) {
  const kind = nextStopKind(status);
  if (kind === 'STORE') {
    return { kind, name: task.vendor.name, address: task.vendor.address, location: task.vendor.location };
  }
  if (kind === 'CUSTOMER') {
    return { kind, name: task.customer.name, address: task.customer.address, location: task.customer.location };
  }
  return null;
}

// The tasks of the rider's trip: the task itself and, with batching, every other order's it carries.
/** @param {Task | null} task */
export function tripTaskIds(task) {
  return task ? [...new Set([task.taskId, ...(task.stops || []).map((stop) => stop.taskId)])] : [];
}

/**
 * @param {Readonly<RiderState>} state
 * @param {import('./rider-queue.js').TapQueue} queue
 * @returns {Task | null}
 */
export function displayTask(state, queue) {
  const task = state.task;
  if (!task) return null;
  let status = task.status;
  for (const item of pendingFor(queue, task.taskId)) {
    // FAILED waits for the server's word (it may ask the rider to wait for the customer longer).
    if (item.kind === 'status' && item.status !== 'FAILED') status = item.status;
  }
  if (isFinal(status)) return null;
  if (status === task.status) return task;
  const rule = STATUSES[status];
  return { ...task, status, allowedNext: rule ? rule.allowedNext : [], nextStop: nextStopFor(task, status) };
}

/**
 * The offers on screen, newest first: every offer gets the same time, so the newest is the one that runs out last.
 * @param {Readonly<RiderState>} state
 * @returns {OfferEntry[]}
 */
export function openOffers(state) {
  return [...state.offers.values()].sort((a, b) => b.deadline - a.deadline);
}
