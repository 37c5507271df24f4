// @ts-check
// The rider stream (WS /api/v1/rider/stream): offers, cancellations and dispatcher decisions as they happen, with
// reconnection and back-off.
import { offline } from './rider-api.js';

/** @typedef {import('./rider-state.js').Rider} Rider */
/** @type {Rider['store']} */ let store;
/** @type {Rider['queue']} */ let queue;

/** @param {Rider} rider */
export function initStream(rider) {
  ({ store, queue } = rider);
  // The socket follows the token: a new one (signed in, renewed) opens it again with that token, none closes it.
  store.subscribe((state, previous) => {
    if (state.token === previous.token) return;
    closeSocket();
    if (state.token) queueMicrotask(connectSocket);
  });
}

// What the server's messages ask for is asked through the store: the offers module fetches the offers, the
// session the rider's view, the session again for a refused token.
function askServer() {
  store.update((state) => ({ offersWanted: state.offersWanted + 1, refreshWanted: state.refreshWanted + 1 }));
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

const REASSIGNED = 'rider.orderReassigned';

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

function connectSocket() {
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
      askServer();
      queue.wake();
    } else if (message.type === 'notification') {
      // Words for the rider about an order (why it was taken away): kept until the task's end is seen, and said in
      // the page's language from the catalog key, not the server's English.
      if (typeof message.key === 'string' && message.key.startsWith(REASSIGNED)) {
        store.update({ orderNews: { orderId: message.orderId, key: message.key } });
      }
      soon();
    } else if (message.type === 'error' && message.problem) {
      closeProblem = message.problem;
    }
  };
  socket.onclose = (event) => {
    current = null;
    open = false;
    const problem = closeProblem || {};
    const status = event.code === 4401 ? 401 : event.code === 4403 ? 403 : 0;
    if (status) store.update({ refusal: { status, detail: problem.detail || '', title: problem.title || '' } });
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
  soonTimer = setTimeout(askServer, 150);
}
