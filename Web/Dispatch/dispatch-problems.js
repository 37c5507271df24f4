// @ts-check
// What needs the dispatcher: a rider's issue report, a locked delivery code, a photo waiting for confirmation, an
// order automatic dispatch gave up on, a round of offers nobody took, an order ready that nobody was offered. Read from the order events as they come (and
// from each open order's log after a reload), and cleared by the decision that settles them.
import { api } from './dispatch-api.js';
import { ISSUE_WORDS, OFFER_WORDS, emit, reference, riderName, state } from './dispatch-state.js';

// An event from the stream ({id, data}) or the log ({eventId, details}) in one shape.
export function normalise(event) {
  return {
    id: event.id || event.eventId, type: event.type, orderId: event.orderId, status: event.status || null,
    occurredAt: Date.parse(event.occurredAt), details: event.data || event.details || {},
    actor: event.actor || null, externalRef: event.externalRef || null,
  };
}

const SETTLES_EVERYTHING = [
  'FailureApproved', 'ReturnToStoreRequested', 'OrderReassigned', 'ProofOfDeliveryOverridden', 'OrderCancelled',
];
const ENDS_TASK = ['DELIVERED', 'FAILED', 'CANCELLED', 'RETURNED_TO_STORE'];

// Applies one event to the problem list; returns true when it changed.
export function applyProblem(event) {
  const id = event.orderId;
  const current = state.problems.get(id);
  const details = event.details;
  let next = current;
  switch (event.type) {
    case 'DeliveryIssueReported':
      next = {
        kind: 'issue', text: ISSUE_WORDS[details.issueType] || 'Problem reported', eventId: event.id,
        issueId: details.issueId,
        hasNote: details.hasNote === 'true', note: null, at: event.occurredAt,
      };
      break;
    case 'DeliveryCodeLocked':
      next = { kind: 'locked', text: 'Delivery code locked after wrong tries', at: event.occurredAt };
      break;
    case 'ProofOfDeliveryAwaitingOverride':
      next = { kind: 'photo', text: 'A photo waits for your confirmation', at: event.occurredAt };
      break;
    case 'DispatchEscalated':
      next = { kind: 'escalated', text: 'Needs a rider', note: details.reason || null, at: event.occurredAt };
      break;
    case 'OrderReadyForPickup':
      // Ready and waiting for a rider (not a rider sent ahead): a warning until someone is offered it. Automatic
      // dispatch offers it within moments, which settles it at once.
      if (event.status === 'READY_FOR_PICKUP' && !current) {
        next = { kind: 'unoffered', text: 'Ready, but not offered to any rider', at: event.occurredAt };
      }
      break;
    case 'OrderReadyUndone':
      if (current && current.kind === 'unoffered') next = null;
      break;
    case 'OffersMade':
    case 'OrderAssigned':
      if (current && ['offers', 'escalated', 'unoffered'].includes(current.kind)) next = null;
      break;
    case 'DeliveryStatusUpdated':
      if (ENDS_TASK.includes(event.status)) next = null;
      break;
    default:
      if (SETTLES_EVERYTHING.includes(event.type)) next = null;
  }
  if (next === current) return false;
  if (next) state.problems.set(id, next);
  else state.problems.delete(id);
  if (next && next.kind === 'issue' && next.hasNote) readIssueNote(id, next);
  emit('problems', id);
  return true;
}

// Notes read so far, by issue id: the feed's line of a report keeps its note after the problem is settled.
const notes = new Map();

/** @param {string} issueId */
export function issueNote(issueId) {
  return notes.get(issueId) || null;
}

// The rider's note stays out of the event log (so it can be anonymised): the order's issues carry it.
async function readIssueNote(orderId, problem) {
  try {
    const { issues } = await api('GET', `/api/v1/orders/${orderId}/issues`);
    for (const item of issues) if (item.note) notes.set(item.issueId, item.note);
    const issue = issues.find((item) => item.issueId === problem.issueId) || issues[issues.length - 1];
    if (!issue || !issue.note) return;
    problem.note = issue.note;
    emit('problems', orderId);
  } catch (error) {
    console.warn('issue note', error);
  }
}

// Rounds of offers: when one ends with nobody taking the order, the feed says so and the order is flagged.
const rounds = new Map(); // orderId → {timer, expiresAt}

export function watchOffers(orderId, expiresAt) {
  const known = rounds.get(orderId);
  if (known && known.expiresAt >= expiresAt) return;
  if (known) clearTimeout(known.timer);
  const timer = setTimeout(() => checkRound(orderId, expiresAt), Math.max(0, expiresAt - Date.now()) + 1200);
  rounds.set(orderId, { timer, expiresAt });
}

export function forgetRounds() {
  for (const round of rounds.values()) clearTimeout(round.timer);
  rounds.clear();
}

async function checkRound(orderId, expiresAt) {
  rounds.delete(orderId);
  let order;
  let offers;
  try {
    order = await api('GET', `/api/v1/orders/${orderId}`);
    state.orders.set(orderId, order);
    if (order.status !== 'READY_FOR_PICKUP') return;
    ({ offers } = await api('GET', `/api/v1/orders/${orderId}/offers`));
  } catch (error) {
    console.warn('offer round', error);
    return;
  }
  if (!offers.length || offers.some((offer) => offer.status === 'OPEN' || offer.status === 'ACCEPTED')) return;
  const round = offers.filter((offer) => Math.abs(Date.parse(offer.expiresAt) - expiresAt) < 3000);
  const outcomes = (round.length ? round : offers.slice(-1))
    .map((offer) => `${offer.riderName || riderName(offer.riderId)} ${OFFER_WORDS[offer.status]}`);
  const expired = round.some((offer) => offer.status === 'EXPIRED');
  state.problems.set(orderId, {
    kind: 'offers', text: expired ? 'Offer expired: offer it again' : 'Offer declined: offer it again', at: expiresAt,
  });
  emit('problems', orderId);
  emit('round-ended', {
    key: `round-${orderId}-${expiresAt}`, at: expiresAt, orderId, alert: true,
    text: `No rider took ${reference(order)} (${outcomes.join(', ')}). Offer it again.`,
  });
}

// After a reload the stream has not told the page about older problems: each open order that could have one has
// its log (and, when waiting for a rider, its offers) read once.
const inspected = new Set();

export async function inspectOpenOrders() {
  const waiting = [...state.open].map((id) => state.orders.get(id)).filter((order) => order && !inspected.has(order.orderId)
    && ['READY_FOR_PICKUP', 'RIDER_ASSIGNED', 'IN_TRANSIT', 'ARRIVED_AT_DESTINATION'].includes(order.status));
  const next = async () => {
    const order = waiting.shift();
    if (!order) return;
    inspected.add(order.orderId);
    try {
      const { events } = await api('GET', `/api/v1/orders/${order.orderId}/events`);
      for (const event of events) applyProblem(normalise(event));
      if (order.status === 'READY_FOR_PICKUP' && !state.problems.has(order.orderId)) {
        const offered = events.filter((event) => event.type === 'OffersMade').pop();
        if (offered) {
          const ttl = Number(offered.details.ttlSeconds || 60) * 1000;
          watchOffers(order.orderId, Date.parse(offered.occurredAt) + ttl);
        }
      }
    } catch (error) {
      console.warn('inspect order', error);
    }
    await next();
  };
  // Three at a time: a hundred open orders after a reload should not queue behind one another, nor flood the server.
  await Promise.all([next(), next(), next()]);
}

export function forgetInspections() {
  inspected.clear();
  notes.clear();
}
