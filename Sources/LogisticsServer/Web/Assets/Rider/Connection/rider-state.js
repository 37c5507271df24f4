// @ts-check
// What the rider app knows and shares between its screens: the state, the services (API, GPS, fix uploader, tap
// queue), the copy kept in localStorage for an offline start, and the task as the rider sees it.
import { config } from '../rider-i18n.js';
import { createApi } from './rider-api.js';
import { TapQueue } from './rider-queue.js';
import { Geo } from './rider-geo.js';
import { FixUploader } from './rider-fixes.js';
import { render, fixArrived } from '../rider-screens.js';
import { refusedToken } from './rider-session.js';
import { send, refused } from '../rider-taps.js';

// The page's element of that id, typed any: callers use it as the input, form or dialog they know it is.
/** @type {(id: string) => any} */
export const $ = (id) => document.getElementById(id);

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

export const state = {
  token: null, riderId: null, profile: null, task: null, offers: new Map(), dismissed: new Set(), accepting: false, availabilityBusy: false,
  screen: null, finished: null, reported: null, refreshing: 0, taskVersion: 0, noServiceWorker: false,
  socket: null, socketRetryMs: 1000, socketTimer: null, socketOpen: false, socketProblem: null,
  navigation: null, navigationLoading: null, photoBusy: false, waitingForLocation: false,
};
export const app = {
  queueLength: () => queue.count(),
  get reroutes() { return state.navigation ? state.navigation.reroutes : 0; },
  get screen() { return state.screen; },
  serviceWorkerReady: Promise.resolve(false),
};
window.riderApp = app;

// The services call back into modules that import this one: safe, since what they are handed are function
// declarations, which exist before any module of the app runs.
export const api = createApi(() => state.token);
export const geo = new Geo({ onFix: fixArrived, onStatus: () => render() });
export const fixes = new FixUploader(api);
export const queue = new TapQueue({
  send, onChange: () => render(), onBlocked: refused, onUnauthorized: (error) => refusedToken(error),
});

export function show(element, visible) {
  element.hidden = !visible;
}

function cacheKey() {
  return `riderCache:${state.riderId}`;
}

export function saveCache() {
  if (!state.riderId) return;
  try {
    localStorage.setItem(cacheKey(), JSON.stringify({ profile: state.profile, task: state.task, reported: state.reported }));
  } catch (error) {
    // Storage full or refused: the page works on, only an offline start would lack the task.
  }
}

export function loadCache() {
  try {
    return JSON.parse(localStorage.getItem(cacheKey()) || 'null');
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

export function pendingFor(taskId) {
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
export function tripTaskIds(task) {
  return task ? [...new Set([task.taskId, ...(task.stops || []).map((stop) => stop.taskId)])] : [];
}

export function displayTask() {
  const task = state.task;
  if (!task) return null;
  let status = task.status;
  for (const item of pendingFor(task.taskId)) {
    // FAILED waits for the server's word (it may ask the rider to wait for the customer longer).
    if (item.kind === 'status' && item.status !== 'FAILED') status = item.status;
  }
  if (isFinal(status)) return null;
  if (status === task.status) return task;
  const rule = STATUSES[status];
  return { ...task, status, allowedNext: rule ? rule.allowedNext : [], nextStop: nextStopFor(task, status) };
}

export function currentOffer() {
  let best = null;
  for (const entry of state.offers.values()) if (!best || entry.deadline < best.deadline) best = entry;
  return best;
}
