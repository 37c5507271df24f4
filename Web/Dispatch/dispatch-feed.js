// @ts-check
// The event feed: every order's events in words, naming riders and orders as people do, newest first. After a reload
// it starts with the last hour of the event log, not with nothing.
import { api } from './dispatch-api.js';
import { applyProblem, issueNote, normalise, watchOffers } from './dispatch-problems.js';
import {
  $, ISSUE_WORDS, el, emit, followLeg, on, reference, renderRows, riderName, state, timeOfDay,
} from './dispatch-state.js';

const MAX_LINES = 200;
const lines = []; // {key, at, text, orderId, alert, event}, newest first; an event's line is worded as it is drawn
const keys = new Set();
const askedRefs = new Set(); // orders whose reference was asked for, once each

const TASK_WORDS = {
  ARRIVED_AT_STORE: (who, ref) => `${who} arrived at the store for ${ref}`,
  PICKED_UP: (who, ref) => `${who} picked up ${ref}`,
  ARRIVED_AT_DESTINATION: (who, ref) => `${who} arrived at the customer with ${ref}`,
  DELIVERED: (who, ref) => `${who} delivered ${ref}`,
  FAILED: (who, ref, details) => `${who} could not deliver ${ref}${details.reason ? ` (${ISSUE_WORDS[details.reason] || details.reason})` : ''}`,
  RETURNED_TO_STORE: (who, ref) => `${who} returned ${ref} to the store`,
  CANCELLED: (who, ref) => `${who}'s task for ${ref} was cancelled`,
};

// An event in a sentence; `alert` marks what the dispatcher must act on.
export function describe(event) {
  const ref = reference(event.orderId);
  const details = event.details;
  const order = state.orders.get(event.orderId);
  const rider = () => riderName(
    (event.actor && event.actor.role === 'rider' && event.actor.id) || details.riderId || (order && order.assignedRiderId));
  const why = details.reason ? `: ${details.reason}` : '';
  switch (event.type) {
    case 'OrderCreated': return { text: `${ref} created${order ? ` for ${order.vendor.name}` : ''}` };
    case 'OrderReadyForPickup': return { text: `${ref} is ready for pickup` };
    case 'OrderReadyUndone': return { text: `${ref} is not ready after all: the store took \u201cReady\u201d back` };
    case 'OffersMade': {
      const names = (details.riderIds || '').split(',').filter(Boolean).map(riderName);
      return { text: `${ref} offered to ${names.join(', ') || 'riders'}` };
    }
    case 'OrderAssigned': return { text: `${riderName(details.riderId)} accepted ${ref}` };
    case 'DeliveryStatusUpdated': {
      const words = TASK_WORDS[event.status];
      return { text: words ? words(rider(), ref, details) : `${ref}: ${event.status}`, alert: event.status === 'FAILED' };
    }
    case 'DeliveryIssueReported': {
      // The rider's note, once read (GET …/issues): the event log keeps none.
      const said = details.issueId && issueNote(details.issueId);
      return {
        text: `Problem on ${ref}: ${ISSUE_WORDS[details.issueType] || 'reported'} (${rider()})${said ? ` — “${said}”` : ''}`,
        alert: true,
      };
    }
    case 'DeliveryCodeLocked': return { text: `${ref}: the delivery code is locked after wrong tries`, alert: true };
    case 'ProofOfDeliveryAccepted':
      return { text: `${details.type === 'OTP' ? 'Delivery code verified' : 'Proof photo accepted'} for ${ref}` };
    case 'ProofOfDeliveryAwaitingOverride': return { text: `${ref}: a photo waits for your confirmation`, alert: true };
    case 'ProofOfDeliveryOverridden': return { text: `Delivery of ${ref} confirmed without proof${why}` };
    case 'FailureApproved': return { text: `Failure of ${ref} approved${why}` };
    case 'OrderReassigned': return { text: `${ref} taken from ${riderName(details.fromRiderId)}${why}` };
    case 'ReturnToStoreRequested': return { text: `${ref} is going back to the store${why}` };
    case 'OrderCancelled': return { text: `${ref} cancelled${why}` };
    case 'DispatchEscalated':
      return { text: `${ref} needs a rider: ${details.reason || 'automatic dispatch found nobody'}`, alert: true };
    default: return { text: `${ref}: ${event.type}${event.status ? ` ${event.status}` : ''}` };
  }
}

export function addLine(line) {
  if (line.key && keys.has(line.key)) return;
  if (!line.key) line.key = `page-${++unkeyed}`;
  keys.add(line.key);
  const index = lines.findIndex((other) => other.at < line.at);
  lines.splice(index === -1 ? lines.length : index, 0, line);
  while (lines.length > MAX_LINES) keys.delete(lines.pop().key);
  render();
}

// A line of the page's own (what it did, or could not do).
export function note(text, alert = false) {
  addLine({ key: null, at: Date.now(), text, alert });
}

let unkeyed = 0;

// A line's words: an event's are written again at each drawing, so an order named "order 9fb1b982" before the page
// knew its reference is named by it once known.
function wording(line) {
  return line.event ? describe(line.event).text : line.text;
}

function render() {
  renderRows($('feed'), lines, (line) => line.key, wording, (line) => {
    const words = [el('time', {}, timeOfDay(line.at)), ' ', wording(line)];
    return el('li', { class: line.alert ? 'alert' : null },
      line.orderId ? el('button', { type: 'button', class: 'link', onclick: () => emit('open-order', line.orderId) }, words)
        : words);
  });
}

export function clearFeed() {
  lines.length = 0;
  keys.clear();
  askedRefs.clear();
  state.legs.clear();
  render();
}

// The stream's events carry no reference: an order the page has not read yet is read once, and the feed redrawn.
async function learnReference(orderId) {
  if (askedRefs.has(orderId) || state.orders.has(orderId) || state.refs.has(orderId)) return;
  askedRefs.add(orderId);
  try {
    const order = await api('GET', `/api/v1/orders/${orderId}`);
    if (order.externalRef) state.refs.set(orderId, order.externalRef);
    render();
  } catch (error) {
    console.warn('order reference', error);
  }
}

// One event, from the stream or the log: a line, the problems it raises or settles, a round of offers to watch.
export function takeEvent(raw, { live }) {
  const event = normalise(raw);
  if (event.externalRef) state.refs.set(event.orderId, event.externalRef);
  // Who has the order changes with these events; the next ones (a status a moment later) must name the new rider
  // before the order is read again.
  const known = state.orders.get(event.orderId);
  if (known && event.type === 'OrderAssigned') known.assignedRiderId = event.details.riderId;
  if (known && event.type === 'OrderReassigned') known.assignedRiderId = null;
  if (followLeg(event)) emit('leg', event.orderId);
  applyProblem(event);
  learnReference(event.orderId);
  if (event.type === 'OffersMade') {
    watchOffers(event.orderId, event.occurredAt + Number(event.details.ttlSeconds || 60) * 1000);
  }
  const { text, alert } = describe(event);
  addLine({ key: event.id, at: live ? Math.max(event.occurredAt, Date.now() - 1000) : event.occurredAt, text, alert,
    orderId: event.orderId, event });
  return event;
}

// The last hour of every order's events, oldest first, as the feed would have shown them. A lapsed round of offers
// writes no event; it shows as a round followed, after its time, by another round instead of an acceptance.
// After the stream dropped, `from` is when it went: what happened meanwhile is read the same way (lines already in
// the feed are not repeated).
export async function replayLastHour(from = Date.now() - 3600_000) {
  const since = new Date(Math.max(from, Date.now() - 3600_000)).toISOString();
  const { events } = await api('GET', `/api/v1/events?since=${encodeURIComponent(since)}&limit=1000`);
  const rounds = new Map();
  for (const raw of events) {
    const event = takeEvent(raw, { live: false });
    if (event.type === 'OffersMade') {
      const before = rounds.get(event.orderId);
      if (before && event.occurredAt >= before.expiresAt) {
        addLine({
          key: `round-${event.orderId}-${before.expiresAt}`, at: before.expiresAt, orderId: event.orderId, alert: true,
          text: `No rider took ${reference(event.orderId)} in time (offered to ${before.names})`,
        });
      }
      const names = (event.details.riderIds || '').split(',').filter(Boolean).map(riderName).join(', ') || 'riders';
      rounds.set(event.orderId, { expiresAt: event.occurredAt + Number(event.details.ttlSeconds || 60) * 1000, names });
    } else if (event.type === 'OrderAssigned' || event.type === 'OrderCancelled') {
      rounds.delete(event.orderId);
    }
  }
}

on('round-ended', (line) => addLine(line));
// An order read (after an event, or the list's refresh) may name lines written before its reference was known.
on('order-read', render);
on('open-orders', render);
// A rider's note, read after the report's line was drawn.
on('problems', render);
