// @ts-check
// The decisions a dispatcher takes on an order that cannot go the usual way: cancel it, give it to another rider
// before pickup, send it back to the store after, approve that it failed, or confirm it without proof. Each asks
// for a reason, which the event log keeps, and says what will happen before it is confirmed.
import { api } from './dispatch-api.js';
import { renderCandidates } from './dispatch-fleet.js';
import { $, el, emit, reference, state } from './dispatch-state.js';

let decision = null; // {kind, orderId} while the form is open

const DECISIONS = {
  cancel: {
    title: (ref) => `Cancel ${ref}?`, path: 'cancel', confirm: 'Yes, cancel the order', back: 'Keep the order',
    hint: 'Open offers end, and the rider and the customer are told why. This cannot be undone.',
  },
  reassign: {
    title: (ref) => `Reassign ${ref} to another rider`, path: 'reassign', confirm: 'Reassign', riders: true,
    hint: 'The rider’s task ends and they are told why. Tick riders to offer the order to, or none to offer it '
      + 'afterwards.',
  },
  returnToStore: {
    title: (ref) => `Send ${ref} back to the store`, path: 'return-to-store', confirm: 'Send back to the store',
    hint: 'The rider’s next stop becomes the store and the customer is told why; the order ends as returned '
      + 'when the rider hands it back.',
  },
  failure: {
    title: (ref) => `Approve the failure of ${ref}`, path: 'failure-approval', confirm: 'Approve the failure',
    hint: 'The rider may then mark the delivery failed at once instead of waiting.',
  },
  override: {
    title: (ref) => `Confirm the delivery of ${ref} without proof`, path: 'pod-override',
    confirm: 'Confirm without proof', hint: 'The rider can then complete the delivery without a photo or a code.',
  },
};

export function decisionOpen() { return decision !== null; }

export function openDecision(kind, order) {
  decision = { kind, orderId: order.orderId };
  const words = DECISIONS[kind];
  $('decision-title').textContent = words.title(reference(order));
  $('decision-hint').textContent = words.hint;
  $('decision-confirm').textContent = words.confirm;
  $('decision-back').textContent = words.back || 'Back';
  $('decision-error').textContent = '';
  $('decision-reason').value = '';
  $('decision-riders').hidden = !words.riders;
  if (words.riders) {
    const list = el('ul', { class: 'candidates' });
    $('decision-riders').replaceChildren(el('p', { class: 'hint' }, 'Offer it to:'), list);
    renderCandidates(order.vendor.location, list);
  }
  $('decision').hidden = false;
  $('order-actions').hidden = true;
  $('offering').hidden = true;
  $('decision-reason').focus();
}

export function closeDecision() {
  decision = null;
  $('decision').hidden = true;
  $('order-actions').hidden = false;
}

async function confirmDecision(event) {
  event.preventDefault();
  if (!decision) return;
  const reason = $('decision-reason').value.trim();
  if (!reason) {
    $('decision-error').textContent = 'Say why, in a few words: the reason goes into the order’s log.';
    $('decision-reason').focus();
    return;
  }
  const { kind, orderId } = decision;
  const body = { reason };
  if (kind === 'reassign') {
    const chosen = [...$('decision-riders').querySelectorAll('input:checked')].map((box) => box.value);
    if (chosen.length) body.riderIds = chosen;
  }
  const confirm = $('decision-confirm');
  confirm.disabled = true;
  try {
    await api('POST', `/api/v1/orders/${orderId}/${DECISIONS[kind].path}`, body);
    // Each decision settles what the order was flagged for; the stream's event says the same a moment later.
    state.problems.delete(orderId);
    emit('problems', orderId);
    closeDecision();
    emit('orders-changed');
    emit('decided', orderId);
  } catch (error) {
    $('decision-error').textContent = error.message;
  } finally {
    confirm.disabled = false;
  }
}

export function wireDecisions() {
  $('decision').addEventListener('submit', confirmDecision);
  $('decision-back').addEventListener('click', () => {
    const orderId = decision && decision.orderId;
    closeDecision();
    if (orderId) emit('decided', orderId);
  });
}
