// The fleet: every rider from GET /api/v1/riders (those without a position too), moved by the stream's fixes, on
// the map with their names and in the riders list with their state, current order, last fix and deliveries today.
import { api } from './dispatch-api.js';
import {
  $, RIDER_COLOURS, RIDER_STATE_WORDS, ago, el, emit, moveTime, reference, refreshTimes, renderRows, riderState,
  state,
} from './dispatch-state.js';

export function rider(id) {
  let entry = state.riders.get(id);
  if (!entry) {
    entry = {
      id, name: null, availability: 'ONLINE', lat: null, lon: null, heading: null, fixAt: null, currentOrders: [],
      deliveriesToday: 0,
    };
    state.riders.set(id, entry);
  }
  return entry;
}

// Deliveries are counted from the dispatcher's own midnight, which only the browser knows.
function localMidnight() {
  const day = new Date();
  day.setHours(0, 0, 0, 0);
  return day.toISOString();
}

export async function loadFleet() {
  const fleet = await api('GET', `/api/v1/riders?limit=5000&dayStart=${encodeURIComponent(localMidnight())}`);
  for (const item of fleet.riders) {
    const entry = rider(item.riderId);
    entry.availability = item.availability;
    entry.name = item.name;
    entry.suspended = item.suspended;
    entry.currentOrders = item.currentOrders || [];
    entry.deliveriesToday = item.deliveriesToday || 0;
    for (const order of entry.currentOrders) {
      if (order.externalRef) state.refs.set(order.orderId, order.externalRef);
    }
    const last = item.lastLocation;
    if (last && (entry.fixAt == null || Date.parse(last.recordedAt) > entry.fixAt)) {
      entry.lat = last.lat;
      entry.lon = last.lon;
      entry.fixAt = Date.parse(last.recordedAt);
    }
  }
  emit('fleet');
}

// A fix from the stream.
export function moveRider(message) {
  const entry = rider(message.riderId);
  entry.lat = message.lat;
  entry.lon = message.lon;
  entry.heading = message.headingDeg ?? null;
  entry.fixAt = Date.parse(message.recordedAt) || Date.now();
}

export function drawMarkers() {
  if (!state.map) return;
  const crowded = state.riders.size > 200;
  const now = Date.now();
  const markers = [];
  for (const r of state.riders.values()) {
    if (r.lat == null) continue;
    markers.push({
      lat: r.lat, lon: r.lon, heading: r.heading, colour: RIDER_COLOURS[riderState(r, now)], shape: 'rider',
      small: crowded, label: crowded ? null : r.name || null,
    });
  }
  $('rider-count').textContent = String(markers.length);
  state.map.setMarkers(markers.concat(state.pins));
}

// The rider whose marker is under a tap (within a finger's width), or null.
export function riderAt(x, y) {
  let best = null;
  let bestDistance = 22;
  for (const r of state.riders.values()) {
    if (r.lat == null) continue;
    const [sx, sy] = state.map.toScreen(r.lat, r.lon);
    const distance = Math.hypot(sx - x, sy - y);
    if (distance < bestDistance) {
      best = r;
      bestDistance = distance;
    }
  }
  return best;
}

const ORDER_OF_STATES = ['task', 'stale', 'free', 'unseen', 'offline'];

export function renderRiders() {
  const now = Date.now();
  const sorted = [...state.riders.values()].sort((a, b) =>
    ORDER_OF_STATES.indexOf(riderState(a, now)) - ORDER_OF_STATES.indexOf(riderState(b, now))
    || (a.name || a.id).localeCompare(b.name || b.id));
  const carrying = (r) => r.currentOrders.map((order) => reference(order.orderId)).join(', ');
  renderRows($('riders'), sorted, (r) => r.id,
    (r) => JSON.stringify([r.name, riderState(r, now), carrying(r), r.fixAt == null, r.deliveriesToday]),
    (r) => {
      const kind = riderState(r, now);
      return el('li', {},
        el('button', { type: 'button', class: `rider-row ${kind}`, onclick: () => emit('open-rider', r.id) },
          el('span', { class: 'row-head' },
            el('i', { class: `dot ${kind}`, 'aria-hidden': 'true' }),
            el('strong', {}, r.name || `Rider ${r.id.slice(0, 8)}`),
            el('span', { class: `chip ${kind}` }, RIDER_STATE_WORDS[kind])),
          el('span', { class: 'row-line' },
            carrying(r) ? `Carrying ${carrying(r)}` : 'No order on hand',
            ' · ', r.fixAt == null ? 'no fix yet' : ['last fix ', ago(r.fixAt), ' ago'],
            ' · ', `${r.deliveriesToday} ${r.deliveriesToday === 1 ? 'delivery' : 'deliveries'} today`)));
    },
    (node, r) => moveTime(node, r.fixAt));
  refreshTimes($('riders'));
  $('riders-empty').hidden = state.riders.size > 0;
}
