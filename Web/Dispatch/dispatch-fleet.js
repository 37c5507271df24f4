// @ts-check
// The fleet: every rider from GET /api/v1/riders (those without a position too), moved by the stream's fixes, on
// the map with their names and in the riders list with their state, current order, last fix and deliveries today.
import { api } from './dispatch-api.js';
import {
  $, RIDER_COLOURS, RIDER_STATE_WORDS, ago, distance, el, emit, metresBetween, moveTime, reference, refreshTimes,
  renderRows, riderState, state,
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
  const all = markers.concat(state.pins);
  if (!crowded) leaveOutCoveredLabels(all);
  state.map.setMarkers(all);
}

// Names that would be written over another name or another marker are left out (the marker stays, and a tap on it
// opens the card): a cluster of riders at a store read as one smudge of overlapping words.
function leaveOutCoveredLabels(markers) {
  if (!state.map.center) return;
  const points = markers.map((marker) => state.map.toScreen(marker.lat, marker.lon));
  const width = $('map').clientWidth;
  const taken = [];
  // Pins (store, customer) first: they belong to the panel the dispatcher is looking at.
  const order = markers.map((marker, index) => index).sort((a, b) => Number(Boolean(markers[b].shape !== 'rider'))
    - Number(Boolean(markers[a].shape !== 'rider')));
  for (const index of order) {
    const marker = markers[index];
    if (!marker.label) continue;
    const [x, y] = points[index];
    // As map.js writes it: 13 px right of the marker (left of it near the right edge), 13 px bold.
    const length = marker.label.length * 7.5;
    const left = x + 13 + length > width - 4 ? x - 13 - length : x + 13;
    const box = [left - 2, y - 9, left + length + 2, y + 6];
    const overlaps = taken.some((other) => box[0] < other[2] && other[0] < box[2] && box[1] < other[3] && other[1] < box[3])
      || points.some(([px, py], other) => other !== index && px + 8 > box[0] && px - 8 < box[2] && py + 8 > box[1]
        && py - 8 < box[3]);
    if (overlaps) marker.label = null;
    else taken.push(box);
  }
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

// Free riders nearest a store in a straight line, to tick; the server ranks by road when none is ticked.
export function renderCandidates(store, list) {
  const now = Date.now();
  const free = [...state.riders.values()]
    .filter((r) => r.availability === 'ONLINE' && r.lat != null && riderState(r, now) !== 'offline')
    .map((r) => ({ rider: r, metres: metresBetween(r, store) }))
    .sort((a, b) => a.metres - b.metres)
    .slice(0, 8);
  const ticked = new Set([...list.querySelectorAll('input:checked')].map((box) => box.value));
  list.replaceChildren(...free.map(({ rider: r, metres }) => el('li', {}, el('label', {},
    el('input', { type: 'checkbox', value: r.id, checked: ticked.has(r.id) }),
    ` ${r.name || `Rider ${r.id.slice(0, 8)}`} · ${distance(metres)}`,
    riderState(r, now) === 'stale' ? el('span', { class: 'chip stale' }, 'Stale GPS') : null))));
  if (!free.length) list.append(el('li', { class: 'hint' }, 'No free rider online'));
}
