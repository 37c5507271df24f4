// @ts-check
// The customer's tracking page: follows the order's live stream with the tracking link's token.
import { TileMap } from '../map.js';

const body = document.body;
const orderId = body.dataset.orderId;
const text = JSON.parse(body.dataset.texts || '{}');
const token = decodeURIComponent(location.pathname.split('/').pop());
const statusLine = document.getElementById('status');
const etaLine = document.getElementById('eta');
const updatedLine = document.getElementById('updated');
const endedLine = document.getElementById('ended-at');
const mapBox = document.getElementById('map-box');
const mapLater = document.getElementById('map-later');
// Plain grey roads: coloured ones would read as traffic, which is for riders and dispatchers.
const map = new TileMap(document.getElementById('map'), undefined, { plainRoads: true });
const store = body.dataset.store || '';
// Before pickup the stream answers "not yet": the page asks again this often, saying where the order is meanwhile.
const BEFORE_PICKUP_RETRY_MS = 15000;

const state = {
  seq: null, stream: null, vendor: null, destination: null, rider: null, shown: null, etaAt: null, distanceM: null, ended: false,
  waitingForPickup: false,
};
let retry = 1000;

const say = (template, values) => template.replace(/\{(\w+)\}/g, (_, key) => values[key] ?? '');
const clock = (iso) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
const statusWords = (status) => say(text[status] || status, { store });

function showMap(visible) {
  if (mapBox) mapBox.hidden = !visible;
  if (mapLater) mapLater.hidden = visible;
}

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
      state.waitingForPickup = false;
      showMap(true);
      statusLine.textContent = statusWords(message.status);
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
      state.statusAt = message.occurredAt || null;
      statusLine.textContent = statusWords(message.status);
      break;
    case 'ended':
      state.ended = true;
      mapBox?.remove();
      mapLater?.remove();
      etaLine.textContent = '';
      updatedLine.hidden = true;
      statusLine.textContent = statusWords(message.status);
      // When it ended, in the customer's time.
      endedLine.textContent = say(text.endedAt, { status: statusWords(message.status), time: clock(state.statusAt || new Date().toISOString()) });
      endedLine.hidden = false;
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
