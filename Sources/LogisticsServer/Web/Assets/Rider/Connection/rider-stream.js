// @ts-check
// The rider stream (WS /api/v1/rider/stream): offers, cancellations and dispatcher decisions as they happen, with
// reconnection and back-off.
import { offline } from './rider-api.js';
import { state, queue } from './rider-state.js';
import { refresh, refusedToken } from './rider-session.js';
import { fetchOffers } from '../Delivery/rider-offers.js';

export function closeSocket() {
  clearTimeout(state.socketTimer);
  if (state.socket) {
    state.socket.onclose = null;
    state.socket.close(1000);
  }
  state.socket = null;
  state.socketOpen = false;
}

export function connectSocket() {
  clearTimeout(state.socketTimer);
  if (!state.token || state.socket) return;
  if (offline()) return; // the 'online' event reconnects
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  let socket;
  try {
    socket = new WebSocket(`${scheme}//${location.host}/api/v1/rider/stream`, ['bearer', state.token]);
  } catch (error) {
    scheduleSocket();
    return;
  }
  state.socket = socket;
  state.socketProblem = null;
  socket.onopen = () => {
    state.socketOpen = true;
    state.socketRetryMs = 1000;
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
      state.socketProblem = message.problem;
    }
  };
  socket.onclose = (event) => {
    state.socket = null;
    state.socketOpen = false;
    const problem = state.socketProblem || {};
    if (event.code === 4401) refusedToken({ status: 401, detail: problem.detail || '', title: problem.title || '' });
    else if (event.code === 4403) refusedToken({ status: 403, detail: problem.detail || '', title: problem.title || '' });
    else scheduleSocket();
  };
}

function scheduleSocket() {
  if (!state.token) return;
  clearTimeout(state.socketTimer);
  const wait = state.socketRetryMs * (0.5 + Math.random() / 2);
  state.socketRetryMs = Math.min(30000, state.socketRetryMs * 2);
  state.socketTimer = setTimeout(connectSocket, wait);
}

let soonTimer = null;
function soon() {
  clearTimeout(soonTimer);
  soonTimer = setTimeout(() => {
    fetchOffers();
    refresh();
  }, 150);
}
