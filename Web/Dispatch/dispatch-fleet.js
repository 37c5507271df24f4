// @ts-check
// The fleet: every rider from GET /api/v1/riders (those without a position too), moved by the stream's fixes, on
// the map with their names and in the riders list with their state, current order, last fix and deliveries today.
import { api } from './dispatch-api.js';
import { LABEL_FONT, labelPlace } from '../Shared/map.js';
import {
  $, RIDER_COLOURS, RIDER_STATE_WORDS, ago, distance, el, emit, metresBetween, moveTime, reference, refreshTimes,
  renderRows, riderState, staleMeaning, state,
} from './dispatch-state.js';

export function rider(id) {
  let entry = state.riders.get(id);
  if (!entry) {
    entry = {
      id, name: null, availability: 'ONLINE', position: 'NONE', lat: null, lon: null, heading: null, fixAt: null,
      currentOrders: [], deliveriesToday: 0,
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
  if (Number.isFinite(fleet.positionStaleAfterS)) state.staleAfterS = fleet.positionStaleAfterS;
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
    const serverFixAt = last ? Date.parse(last.recordedAt) : null;
    if (last && (entry.fixAt == null || serverFixAt > entry.fixAt)) {
      entry.lat = last.lat;
      entry.lon = last.lon;
      entry.fixAt = serverFixAt;
    }
    // The server's word on the position, unless the stream brought a fix newer than the one it judged.
    const newer = entry.fixAt != null && (serverFixAt == null || entry.fixAt > serverFixAt);
    entry.position = newer ? 'FRESH' : item.position || (last ? 'FRESH' : 'NONE');
  }
  emit('fleet');
}

// A fix from the stream: the rider's position is fresh again.
export function moveRider(message) {
  const entry = rider(message.riderId);
  entry.lat = message.lat;
  entry.lon = message.lon;
  entry.heading = message.headingDeg ?? null;
  entry.fixAt = Date.parse(message.recordedAt) || Date.now();
  entry.position = 'FRESH';
}

export function drawMarkers() {
  if (!state.map) return;
  const crowded = state.riders.size > 200;
  /** @type {import('../Shared/map.js').Marker[]} */
  const markers = [];
  for (const r of state.riders.values()) {
    if (r.lat == null) continue;
    markers.push({
      lat: r.lat, lon: r.lon, heading: r.heading, colour: RIDER_COLOURS[riderState(r)], shape: 'rider',
      small: crowded, label: crowded ? null : r.name || null,
    });
  }
  $('rider-count').textContent = String(markers.length);
  const all = markers.concat(state.pins);
  if (!crowded) leaveOutCoveredLabels(all);
  state.map.setMarkers(all);
}

// Each name goes on the side of its marker where it covers no other name and no other marker (right, left, above,
// below, measured as map.js writes it), else where it covers no other name; only a name with no such side is left
// out (the marker stays, and a tap on it opens the card). A cluster of riders at a store read as one smudge of overlapping words, or lost names.
const measure = document.createElement('canvas').getContext('2d');
const SIDES = ['right', 'left', 'above', 'below'];

function leaveOutCoveredLabels(markers) {
  if (!state.map.center) return;
  const points = markers.map((marker) => state.map.toScreen(marker.lat, marker.lon));
  const width = $('map').clientWidth;
  const taken = [];
  measure.font = LABEL_FONT;
  // Riders on top of one another (waiting at one store) share one label: "Asha Rao, Marc Dubois", or "+ 2" more.
  const leader = markers.map((marker, index) => index);
  const members = new Map();
  markers.forEach((marker, index) => {
    if (marker.shape !== 'rider' || !marker.label) return;
    const first = markers.findIndex((other, earlier) => earlier < index && other.shape === 'rider' && other.label
      && leader[earlier] === earlier && Math.hypot(points[earlier][0] - points[index][0], points[earlier][1] - points[index][1]) < 6);
    if (first === -1) return;
    leader[index] = first;
    members.set(first, [...(members.get(first) || [markers[first].label]), marker.label]);
    marker.label = null;
  });
  for (const [index, names] of members) {
    markers[index].label = names.length <= 2 ? names.join(', ') : `${names[0]} + ${names.length - 1}`;
  }
  const coversName = (box) => taken.some((other) => box[0] < other[2] && other[0] < box[2] && box[1] < other[3]
    && other[1] < box[3]);
  const coversMarker = (box, index) => points.some(([px, py], other) => leader[other] !== leader[index]
    && px + 11 > box[0] && px - 11 < box[2] && py + 11 > box[1] && py - 11 < box[3]);
  // Pins (store, customer) first: they belong to the panel the dispatcher is looking at.
  const order = markers.map((marker, index) => index).sort((a, b) => Number(markers[b].shape !== 'rider')
    - Number(markers[a].shape !== 'rider'));
  for (const index of order) {
    const marker = markers[index];
    if (!marker.label) continue;
    const [x, y] = points[index];
    const length = measure.measureText(marker.label).width;
    const boxes = SIDES.map((side) => {
      const [left, baseline] = labelPlace(x, y, length, width, side);
      return { side, box: [left - 2, baseline - 13, left + length + 2, baseline + 4] };
    });
    // A side clear of names and markers; else one clear of names only (the name is drawn over the marker, which
    // still shows around it); else the name is left out.
    const free = boxes.find(({ box }) => !coversName(box) && !coversMarker(box, index))
      || boxes.find(({ box }) => !coversName(box));
    if (free) {
      marker.labelSide = free.side;
      taken.push(free.box);
    } else marker.label = null;
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
  const sorted = [...state.riders.values()].sort((a, b) =>
    ORDER_OF_STATES.indexOf(riderState(a)) - ORDER_OF_STATES.indexOf(riderState(b))
    || (a.name || a.id).localeCompare(b.name || b.id));
  const carrying = (r) => r.currentOrders.map((order) => reference(order.orderId)).join(', ');
  renderRows($('riders'), sorted, (r) => r.id,
    (r) => JSON.stringify([r.name, riderState(r), carrying(r), r.fixAt == null, r.deliveriesToday]),
    (r) => {
      const kind = riderState(r);
      return el('li', {},
        el('button', { type: 'button', class: `rider-row ${kind}`, onclick: () => emit('open-rider', r.id) },
          el('span', { class: 'row-head' },
            el('i', { class: `dot ${kind}`, 'aria-hidden': 'true' }),
            el('strong', {}, r.name || `Rider ${r.id.slice(0, 8)}`),
            el('span', { class: `chip ${kind}`, title: kind === 'stale' ? staleMeaning() : null }, RIDER_STATE_WORDS[kind])),
          el('span', { class: 'row-line' },
            carrying(r) ? `Carrying ${carrying(r)}` : 'No order on hand',
            ' · ', r.fixAt == null ? 'no fix yet' : ['last fix ', ago(r.fixAt), ' ago'],
            ' · ', `${r.deliveriesToday} ${r.deliveriesToday === 1 ? 'delivery' : 'deliveries'} today`)));
    },
    (node, r) => moveTime(node, r.fixAt));
  refreshTimes($('riders'));
  $('riders-empty').hidden = state.riders.size > 0;
}

// Road distance and time from a rider's position to a store, as the router gives them (POST /api/v1/matrix): the
// figures the rider's offer shows ("To the store: 1.0 km"), so the two never disagree. Keyed by where the rider was.
const roads = new Map(); // key → {metres, seconds} (null: no road joins them)

function roadKey(r, store) {
  return `${r.id}|${r.lat.toFixed(4)},${r.lon.toFixed(4)}|${store.lat},${store.lon}`;
}

function roadWords(r, store, metres) {
  const road = roads.get(roadKey(r, store));
  if (road === undefined) return `${distance(metres)} in a straight line`;
  if (road === null) return 'no road route';
  return `${distance(road.metres)} by road, ${Math.max(1, Math.round(road.seconds / 60))} min`;
}

async function askRoads(riders, store, redraw) {
  const missing = riders.filter((r) => !roads.has(roadKey(r, store)));
  if (!missing.length) return;
  if (roads.size > 500) roads.clear();
  try {
    const answer = await api('POST', '/api/v1/matrix', {
      sources: missing.map((r) => ({ lat: r.lat, lon: r.lon })), destinations: [{ lat: store.lat, lon: store.lon }],
    });
    missing.forEach((r, index) => {
      const seconds = answer.durations[index][0];
      roads.set(roadKey(r, store), seconds == null ? null : { seconds, metres: answer.distances[index][0] });
    });
    redraw();
  } catch (error) {
    // Without a map (or the router down) the straight line stays, and says so.
    console.warn('road distances', error);
  }
}

// Free riders nearest a store, to tick: in a straight line at first, then by road once the router answered (the
// server ranks by road when none is ticked). After them, online riders with no position yet: the server takes an
// offer to them by hand, and the dispatcher sees why there is no distance.
export function renderCandidates(store, list) {
  const online = [...state.riders.values()].filter((r) => r.availability === 'ONLINE' && !r.suspended);
  const placed = online.filter((r) => riderState(r) !== 'unseen' && r.lat != null)
    .map((r) => ({ rider: r, metres: metresBetween(r, store) }))
    .sort((a, b) => a.metres - b.metres)
    .slice(0, 8);
  const unplaced = online.filter((r) => riderState(r) === 'unseen' || r.lat == null)
    .sort((a, b) => (a.name || a.id).localeCompare(b.name || b.id))
    .slice(0, 8);
  const byRoad = (item) => {
    const road = roads.get(roadKey(item.rider, store));
    return road ? road.seconds : road === null ? Infinity : null;
  };
  if (placed.every((item) => byRoad(item) != null)) placed.sort((a, b) => byRoad(a) - byRoad(b));
  const ticked = new Set([...list.querySelectorAll('input:checked')].map((box) => box.value));
  const row = (r, ...words) => el('li', {}, el('label', {},
    el('input', { type: 'checkbox', value: r.id, checked: ticked.has(r.id) }),
    el('span', {}, `${r.name || `Rider ${r.id.slice(0, 8)}`} · `, ...words)));
  list.replaceChildren(
    ...placed.map(({ rider: r, metres }) => row(r, roadWords(r, store, metres), riderState(r) === 'stale'
      ? [' ', el('span', { class: 'chip stale', title: staleMeaning() }, 'Stale GPS · last fix ', ago(r.fixAt), ' ago')]
      : null)),
    ...unplaced.map((r) => row(r, el('span', { class: 'no-position' },
      'No position yet: offered without road distance'))));
  if (!placed.length && !unplaced.length) list.append(el('li', { class: 'hint' }, 'No free rider online'));
  askRoads(placed.map((item) => item.rider), store, () => renderCandidates(store, list));
}
