// @ts-check
// A rider's card: what the page knows of them (the data model has no phone or vehicle yet; they show once the fleet
// list carries them), the orders they carry, and their trail of the last 30 minutes drawn on the map.
import { api } from './dispatch-api.js';
import {
  $, RIDER_STATE_WORDS, ago, distance, el, emit, metresBetween, moveTime, reference, refreshTimes, riderState,
  staleMeaning, state,
} from './dispatch-state.js';

const TRAIL_MINUTES = 30;
// Two fixes further apart in time than this are not joined: the rider was offline or out of coverage between them.
const GAP_MS = 120_000;
let shown = null; // the rider id on the card
let drawn = ''; // what the card shows, so a refresh that changes nothing leaves its buttons alone

export function shownRider() { return shown; }

export async function openRiderCard(id) {
  shown = id;
  drawn = '';
  renderCard();
  $('rider-trail').textContent = 'Loading the trail…';
  state.map.setRoute(null);
  $('rider-ratings').textContent = '';
  await Promise.all([drawTrail(id), showRatings(id)]);
}

// What customers thought: the average over every rating and the newest comment, if any.
async function showRatings(id) {
  let ratings;
  try {
    ratings = await api('GET', `/api/v1/riders/${id}/ratings?limit=5`);
  } catch (error) {
    $('rider-ratings').textContent = `Ratings: ${error.message}`;
    return;
  }
  if (shown !== id) return;
  if (ratings.count === 0) {
    $('rider-ratings').textContent = 'No customer ratings yet';
    return;
  }
  const commented = ratings.ratings.find((rating) => rating.comment);
  $('rider-ratings').textContent = `Customers rate ${ratings.averageStars.toFixed(1)} of 5 (${ratings.count} `
    + `${ratings.count === 1 ? 'rating' : 'ratings'})${commented ? `; latest comment: “${commented.comment}”` : ''}`;
}

export function closeRiderCard() {
  shown = null;
}

export function renderCard() {
  if (!shown) return;
  const r = state.riders.get(shown);
  if (!r) return;
  const kind = riderState(r);
  const signature = JSON.stringify([r.id, r.name, kind, r.currentOrders, r.fixAt == null, r.deliveriesToday, r.phone,
    r.vehicle]);
  if (signature === drawn) {
    // A newer fix moves the time on; the buttons stay where the dispatcher may be about to tap.
    moveTime($('rider-facts'), r.fixAt);
    refreshTimes($('rider-facts'));
    return;
  }
  drawn = signature;
  $('rider-title').textContent = r.name || `Rider ${r.id.slice(0, 8)}`;
  /** @type {[string, any][]} */
  const facts = [
    ['State', [el('span', { class: `chip ${kind}` }, RIDER_STATE_WORDS[kind]), kind === 'stale' ? ` (${staleMeaning()})` : null]],
    ['Current order', r.currentOrders.length
      ? r.currentOrders.map((order) => el('button', {
        type: 'button', class: 'link', onclick: () => emit('open-order', order.orderId),
      }, reference(order.orderId)))
      : 'None'],
    ['Last fix', r.fixAt == null ? 'No position yet' : [ago(r.fixAt), ' ago']],
    ['Deliveries today', String(r.deliveriesToday)],
  ];
  if (r.phone) facts.push(['Phone', el('a', { href: `tel:${r.phone}` }, r.phone)]);
  if (r.vehicle) facts.push(['Vehicle', r.vehicle]);
  $('rider-facts').replaceChildren(...facts.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));
}

async function drawTrail(id) {
  let trail;
  try {
    trail = await api('GET', `/api/v1/riders/${id}/trail?minutes=${TRAIL_MINUTES}`);
  } catch (error) {
    $('rider-trail').textContent = `Trail: ${error.message}`;
    return;
  }
  if (shown !== id) return;
  const points = trail.fixes.map((fix) => ({ lat: fix.lat, lon: fix.lon, at: Date.parse(fix.recordedAt) }));
  const congestion = [];
  let metres = 0;
  for (let i = 1; i < points.length; i++) {
    const gap = points[i].at - points[i - 1].at > GAP_MS;
    congestion.push(gap ? 'GAP' : 'UNKNOWN');
    if (!gap) metres += metresBetween(points[i], points[i - 1]);
  }
  state.map.setRoute(points, congestion);
  const r = state.riders.get(id);
  const focus = points.concat(r && r.lat != null ? [{ lat: r.lat, lon: r.lon }] : []);
  if (focus.length) state.map.fit(focus);
  $('rider-trail').textContent = points.length === 0
    ? `No fixes in the last ${TRAIL_MINUTES} minutes`
    : `Trail of the last ${TRAIL_MINUTES} minutes: ${distance(metres)} from ${points.length} fixes`;
}
