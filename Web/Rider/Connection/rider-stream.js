// @ts-check
// The rider stream (WS /api/v1/rider/stream): offers, cancellations and dispatcher decisions as they happen, with
// reconnection and back-off.
import { offline } from './rider-api.js';
import { refresh, refusedToken } from './rider-session.js';
import { fetchOffers } from '../Delivery/rider-offers.js';

/** @typedef {import('./rider-state.js').Rider} Rider */
/** @type {Rider['store']} */ let store;
/** @type {Rider['queue']} */ let queue;

/** @param {Rider} rider */
export function initStream(rider) {
  ({ store, queue } = rider);
}

// The connection is this module's alone; the other modules ask whether it is open.
/** @type {WebSocket | null} */
let current = null;
let open = false;
let retryMs = 1000;
let retryTimer = null;
// The server's reason for closing, sent just before the close.
let closeProblem = null;

export const socketOpen = () => open;

// A network that came back is worth trying at once, not after the back-off grown while it was away.
export function reconnectSoon() {
  retryMs = 1000;
  connectSocket();
}

export function closeSocket() {
  clearTimeout(retryTimer);
  if (current) {
    current.onclose = null;
    current.close(1000);
  }
  current = null;
  open = false;
}

export function connectSocket() {
  clearTimeout(retryTimer);
  const { token } = store.get();
  if (!token || current) return;
  if (offline()) return; // the 'online' event reconnects
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  let socket;
  try {
    socket = new WebSocket(`${scheme}//${location.host}/api/v1/rider/stream`, ['bearer', token]);
  } catch (error) {
    scheduleSocket();
    return;
  }
  current = socket;
  closeProblem = null;
  socket.onopen = () => {
    open = true;
    retryMs = 1000;
  };
  socket.onmessage = (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch (error) {
      return;
    }
    if (message.type === 'ready') {
      // Connected (again): whatever happened meanwhile.
      fetchOffers();
      refresh();
      queue.wake();
    } else if (message.type === 'notification') {
      soon();
    } else if (message.type === 'error' && message.problem) {
      closeProblem = message.problem;
    }
  };
  socket.onclose = (event) => {
    current = null;
    open = false;
    const problem = closeProblem || {};
    if (event.code === 4401) refusedToken({ status: 401, detail: problem.detail || '', title: problem.title || '' });
    else if (event.code === 4403) refusedToken({ status: 403, detail: problem.detail || '', title: problem.title || '' });
    else scheduleSocket();
  };
}

function scheduleSocket() {
  if (!store.get().token) return;
  clearTimeout(retryTimer);
  const wait = retryMs * (0.5 + Math.random() / 2);
  retryMs = Math.min(30000, retryMs * 2);
  retryTimer = setTimeout(connectSocket, wait);
}

let soonTimer = null;
function soon() {
  clearTimeout(soonTimer);
  soonTimer = setTimeout(() => {
    fetchOffers();
    refresh();
  }, 150);
}
