// @ts-check
// One order on the page: what it is and how long it has waited, the problem a rider reported, the offers and what
// became of each, the decisions its status allows (dispatch-decisions.js asks for them), and its timeline with the
// roads driven and the proof of delivery.
import { api, photoURL } from './dispatch-api.js';
import { closeDecision, decisionOpen, openDecision } from './dispatch-decisions.js';
import { describe } from './dispatch-feed.js';
import { renderCandidates } from './dispatch-fleet.js';
import { normalise } from './dispatch-problems.js';
import {
  $, FINAL, OFFER_WORDS, ago, el, emit, followLeg, on, orderWords, reference, riderName, state, timeOfDay,
} from './dispatch-state.js';
import { decodePolyline } from '../Shared/map.js';

let selected = null; // the order id on the panel
let generation = 0; // drops the answers of an earlier render
let refreshTimer = 0;
let offerTimer = 0;
let photo = null; // the proof photo's object URL, released when the panel moves on

export function selectedOrder() { return selected; }

export async function openOrder(orderId) {
  if (selected !== orderId) {
    selected = orderId;
    closeDecision();
    releasePhoto();
    $('timeline').replaceChildren();
    $('offers').replaceChildren();
    $('proof').hidden = true;
    state.map.setRoute(null);
  }
  await refresh({ fit: true });
}

export function closeOrder() {
  selected = null;
  generation++;
  clearTimeout(refreshTimer);
  clearTimeout(offerTimer);
  closeDecision();
  releasePhoto();
  state.pins = [];
  state.map.setRoute(null);
}

// Something happened to the order: read it again shortly (events come in bursts).
export function orderChanged(orderId) {
  if (orderId !== selected) return;
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => refresh({ fit: false }), 250);
}

async function refresh({ fit }) {
  const id = selected;
  const mine = ++generation;
  let order;
  try {
    order = await api('GET', `/api/v1/orders/${id}`);
  } catch (error) {
    $('order-title').textContent = reference(id);
    $('order-status').textContent = `This order could not be read: ${error.message}`;
    return;
  }
  if (mine !== generation) return;
  state.orders.set(id, order);
  if (FINAL.includes(order.status)) state.open.delete(id);
  emit('order-read', order);
  renderFacts(order);
  renderActions(order);
  showPins(order, fit);
  const [offers, log] = await Promise.all([
    api('GET', `/api/v1/orders/${id}/offers`).catch(() => ({ offers: [] })),
    api('GET', `/api/v1/orders/${id}/events`).catch((error) => ({ error })),
  ]);
  if (mine !== generation) return;
  // The badge follows the rider's last step as the timeline below tells it.
  if (!log.error) {
    state.legs.delete(id);
    for (const event of log.events) followLeg(normalise(event));
    renderStatus(order);
  }
  renderOffers(order, offers.offers);
  renderTimeline(order, log);
  await showPath(order, mine, fit);
}

function renderStatus(order) {
  const waited = FINAL.includes(order.status) ? ` at ${timeOfDay(order.updatedAt)}` : [' for ', ago(Date.parse(order.updatedAt))];
  $('order-status').replaceChildren(
    el('span', { class: `chip status ${order.status.toLowerCase()}` }, orderWords(order)),
    ...[waited].flat());
}

function renderFacts(order) {
  const ref = reference(order);
  $('order-title').textContent = ref;
  renderStatus(order);
  const problem = state.problems.get(order.orderId);
  $('order-problem').hidden = !problem;
  if (problem) {
    $('order-problem').replaceChildren(el('p', {},
      el('strong', {}, problem.text),
      problem.note ? ` — “${problem.note}”` : null,
      el('time', {}, ` · ${timeOfDay(problem.at)}`)));
  }
  const rider = order.assignedRiderId;
  const facts = [
    ['Store', `${order.vendor.name}, ${order.vendor.address}`],
    ['Customer', [order.customer.name, ', ', el('a', { href: `tel:${order.customer.phone.replace(/[^+\d]/g, '')}` },
      order.customer.phone), el('br'), order.customer.address]],
    ['Rider', rider ? el('button', { type: 'button', class: 'link', onclick: () => emit('open-rider', rider) },
      riderName(rider)) : 'None yet'],
    ['Proof', order.podType === 'OTP' ? 'Delivery code (OTP)' : 'Photo'],
    ['Created', timeOfDay(order.createdAt)],
  ];
  if (order.expectedReadyAt && !order.readyAt) facts.push(['Ready by', timeOfDay(order.expectedReadyAt)]);
  if (order.notes) facts.push(['Notes', order.notes]);
  if (order.cancelReason) facts.push(['Cancelled because', order.cancelReason]);
  if (order.rating) {
    const { stars, comment } = order.rating;
    facts.push(['Customer rating', `${'★'.repeat(stars)}${'☆'.repeat(5 - stars)} ${stars} of 5${comment ? ` “${comment}”` : ''}`]);
  }
  $('order-facts').replaceChildren(...facts.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));
}

function renderActions(order) {
  const status = order.status;
  const problem = state.problems.get(order.orderId);
  const buttons = [];
  const action = (words, handler, kind) => buttons.push(el('button', { type: 'button', class: kind, onclick: handler }, words));
  if (['PENDING_VENDOR_ACCEPTANCE', 'PREPARING'].includes(status) || (status === 'RIDER_ASSIGNED' && !order.readyAt)) {
    action('Mark ready', () => markReady(order), 'primary');
  }
  if (status === 'RIDER_ASSIGNED') action('Reassign to another rider', () => openDecision('reassign', order));
  if (status === 'ARRIVED_AT_DESTINATION') action('Confirm delivery without proof', () => openDecision('override', order));
  if (['IN_TRANSIT', 'ARRIVED_AT_DESTINATION'].includes(status)) {
    action('Send back to the store', () => openDecision('returnToStore', order));
    if (status === 'ARRIVED_AT_DESTINATION' || (problem && problem.kind === 'issue')) {
      action('Approve the failure', () => openDecision('failure', order));
    }
  }
  if (!FINAL.includes(status)) action('Cancel the order', () => openDecision('cancel', order), 'danger');
  $('order-actions').replaceChildren(...buttons);
  const offerable = status === 'READY_FOR_PICKUP';
  $('offering').hidden = !offerable || decisionOpen();
  if (offerable) renderCandidates(order.vendor.location, $('candidates'));
}

// An offer's outcome in words: an acceptance the dispatcher has since undone by reassigning says so.
function offerWords(order, offer, now) {
  if (offer.status === 'OPEN') {
    return `${OFFER_WORDS.OPEN} (${Math.max(0, Math.round((Date.parse(offer.expiresAt) - now) / 1000))} s left)`;
  }
  if (offer.status === 'ACCEPTED' && order.assignedRiderId !== offer.riderId) return 'accepted, then taken off the order';
  return OFFER_WORDS[offer.status];
}

function renderOffers(order, offers) {
  $('offers-box').hidden = offers.length === 0;
  const now = Date.now();
  $('offers').replaceChildren(...offers.map((offer) => {
    const taken = offer.status === 'ACCEPTED' && order.assignedRiderId !== offer.riderId;
    return el('li', { class: `offer ${taken ? 'withdrawn' : offer.status.toLowerCase()}` },
      el('span', {}, offer.riderName || riderName(offer.riderId)), ' ',
      el('span', { class: `chip offer-${taken ? 'cancelled' : offer.status.toLowerCase()}` }, offerWords(order, offer, now)),
      el('time', {}, ` ${timeOfDay(offer.createdAt)}`));
  }));
  // While a round waits for answers, a second round would race it: the button comes back when the round is over.
  const waiting = offers.filter((offer) => offer.status === 'OPEN' && Date.parse(offer.expiresAt) > now);
  $('offer').hidden = waiting.length > 0;
  $('offer-wait').hidden = waiting.length === 0;
  if (waiting.length) {
    const names = waiting.map((offer) => offer.riderName || riderName(offer.riderId)).join(', ');
    const left = Math.max(...waiting.map((offer) => Date.parse(offer.expiresAt))) - now;
    $('offer-wait').textContent = `Waiting for ${names} to answer (${Math.ceil(left / 1000)} s left); offer again after that.`;
  }
  $('offer').textContent = offers.length ? 'Offer again' : 'Offer the order';
  // While an offer is open, the panel looks again when it lapses, so "expired" shows without a click.
  clearTimeout(offerTimer);
  const open = offers.filter((offer) => offer.status === 'OPEN').map((offer) => Date.parse(offer.expiresAt));
  if (open.length && order.status === 'READY_FOR_PICKUP') {
    offerTimer = setTimeout(() => orderChanged(order.orderId), Math.max(...open) - now + 600);
  }
}

function renderTimeline(order, log) {
  const timeline = $('timeline');
  if (log.error) {
    timeline.replaceChildren(el('li', {}, `The timeline could not be read: ${log.error.message}`));
    return;
  }
  const events = log.events.map(normalise);
  timeline.replaceChildren(...events.map((event) => {
    const { text, alert } = describe(event);
    return el('li', { class: alert ? 'alert' : null }, el('time', {}, timeOfDay(event.occurredAt)), ' ', text);
  }));
  showProof(order, events);
}

// The proof: the photo (read with the token), or that the customer's code was verified.
async function showProof(order, events) {
  const figure = $('proof');
  const proof = events.filter((event) => event.type === 'ProofOfDeliveryAccepted'
    || event.type === 'ProofOfDeliveryAwaitingOverride').pop();
  if (!proof) {
    figure.hidden = true;
    return;
  }
  const where = proof.details.distanceM ? `, ${Math.round(Number(proof.details.distanceM))} m from the door` : '';
  if (proof.details.type === 'OTP') {
    figure.hidden = false;
    figure.replaceChildren(el('figcaption', {}, `Proof of delivery: the customer’s code was verified at ${timeOfDay(proof.occurredAt)}`));
    return;
  }
  if (figure.dataset.podId === proof.details.podId && photo) return;
  figure.dataset.podId = proof.details.podId;
  const caption = el('figcaption', {}, `Proof of delivery: photo taken at ${timeOfDay(proof.occurredAt)}${where}`
    + (proof.type === 'ProofOfDeliveryAwaitingOverride' ? ' (waits for your confirmation)' : ''));
  figure.hidden = false;
  figure.replaceChildren(caption);
  try {
    const url = await photoURL(proof.details.podId);
    if (selected !== order.orderId) return URL.revokeObjectURL(url);
    releasePhoto();
    photo = url;
    figure.replaceChildren(el('img', { src: url, alt: `Proof of delivery photo for ${reference(order)}` }), caption);
  } catch (error) {
    figure.replaceChildren(caption, el('p', { class: 'error' }, error.message));
  }
}

function releasePhoto() {
  if (photo) URL.revokeObjectURL(photo);
  photo = null;
  delete $('proof').dataset.podId;
}

function showPins(order, fit) {
  state.pins = [
    { lat: order.vendor.location.lat, lon: order.vendor.location.lon, colour: '#1d2127', shape: 'square', label: 'Store' },
    { lat: order.customer.location.lat, lon: order.customer.location.lon, colour: '#0b5cad', label: 'Customer' },
  ];
  emit('pins');
  if (fit) {
    const rider = state.riders.get(order.assignedRiderId);
    state.map.fit([order.vendor.location, order.customer.location].concat(rider && rider.lat != null ? [rider] : []));
  }
}

// The fixes stored for the order, matched to the roads (GET …/path), drawn on the map and summed up in the timeline.
async function showPath(order, mine, fit) {
  if (['PENDING_VENDOR_ACCEPTANCE', 'PREPARING', 'READY_FOR_PICKUP'].includes(order.status) && !order.taskId) return;
  const item = el('li', { class: 'path' }, 'Roads driven: reading the fixes…');
  $('timeline').append(item);
  let path;
  try {
    path = await api('GET', `/api/v1/orders/${order.orderId}/path`);
  } catch (error) {
    item.textContent = `Roads driven: ${error.message}`;
    return;
  }
  if (mine !== generation) return;
  // Stretch by stretch: where no road joins two fixes (a jump, GPS lost), nothing is drawn between them.
  const points = [];
  const congestion = [];
  for (const stretch of path.stretches) {
    const piece = decodePolyline(stretch.geometry);
    if (points.length && piece.length) congestion.push('GAP');
    piece.forEach((point, index) => {
      if (index > 0) congestion.push('UNKNOWN');
      points.push(point);
    });
  }
  state.map.setRoute(points, congestion);
  if (fit && points.length > 1) state.map.fit(points.concat([order.vendor.location, order.customer.location]));
  const metres = path.stretches.reduce((sum, stretch) => sum + stretch.distanceM, 0);
  const unmatched = path.unmatched.reduce((sum, run) => sum + run.fixCount, 0);
  item.textContent = path.fixCount === 0
    ? 'Roads driven: no fixes stored yet'
    : `Roads driven: ${(metres / 1000).toFixed(1)} km matched from ${path.fixCount} fixes`
      + (unmatched ? ` (${unmatched} off the roads)` : '');
}

async function markReady(order) {
  try {
    await api('POST', `/api/v1/orders/${order.orderId}/ready`);
    emit('orders-changed');
  } catch (error) {
    emit('note', `Marking ${reference(order)} ready: ${error.message}`, true);
  }
  orderChanged(order.orderId);
}

async function offer() {
  const order = state.orders.get(selected);
  if (!order) return;
  const chosen = [...$('candidates').querySelectorAll('input:checked')].map((box) => box.value);
  const body = chosen.length ? { riderIds: chosen } : { strategy: 'nearest', count: 3 };
  const button = $('offer');
  button.disabled = true;
  try {
    await api('POST', `/api/v1/orders/${order.orderId}/offers`, body);
    for (const box of $('candidates').querySelectorAll('input:checked')) box.checked = false;
    state.problems.delete(order.orderId);
    emit('problems', order.orderId);
  } catch (error) {
    emit('note', `Offering ${reference(order)}: ${error.message}`, true);
  } finally {
    button.disabled = false;
  }
  orderChanged(order.orderId);
}

export function wireOrderPanel() {
  $('offer').addEventListener('click', offer);
}

// A decision taken or given up: the panel shows the order as it now is.
on('decided', orderChanged);
