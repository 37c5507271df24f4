// @ts-check
// The decisions a dispatcher takes on an order that cannot go the usual way: cancel it, give it to another rider
// before pickup, send it back to the store after, approve that it failed, or confirm it without proof. Each asks
// for a reason, which the event log keeps, and says what will happen before it is confirmed. Whoever hears of it
// outside the office (the rider taken off an order, the customer whose order goes back) is told in fixed words
// chosen here, never the typed reason.
import { api } from './dispatch-api.js';
import { renderCandidates } from './dispatch-fleet.js';
import { $, el, emit, reference, state } from './dispatch-state.js';

let decision = null; // {kind, orderId} while the form is open

const DECISIONS = {
  cancel: {
    title: (ref) => `Cancel ${ref}?`, path: 'cancel', confirm: 'Yes, cancel the order', back: 'Keep the order',
    hint: 'Open offers end; the rider is told why, the customer that the order was cancelled. This cannot be undone.',
  },
  reassign: {
    title: (ref) => `Reassign ${ref} to another rider`, path: 'reassign', confirm: 'Reassign', riders: true,
    hint: 'The rider’s task ends and they are told why in the words chosen below. Tick riders to offer the order '
      + 'to, or none to offer it afterwards.',
    kinds: {
      label: 'What the rider is told',
      options: [['RIDER_DELAYED', 'The pickup is running late'], ['CLOSER_RIDER', 'A rider nearer the store takes it'],
        ['RIDER_PROBLEM', 'Your problem was heard: you are taken off it'], ['PLAN_CHANGED', 'The plan changed'],
        ['OTHER', 'Another reason']],
    },
  },
  returnToStore: {
    title: (ref) => `Send ${ref} back to the store`, path: 'return-to-store', confirm: 'Send back to the store',
    hint: 'The rider’s next stop becomes the store and the customer is told why in the words chosen below; the '
      + 'order ends as returned when the rider hands it back.',
    kinds: {
      label: 'What the customer is told',
      options: [['CUSTOMER_UNAVAILABLE', 'We could not reach you'], ['ADDRESS_NOT_FOUND', 'We could not find your address'],
        ['WRONG_ADDRESS', 'The address seems wrong'], ['ORDER_DAMAGED', 'The order was damaged on the way'],
        ['CUSTOMER_REQUEST', 'You asked us to'], ['OTHER', 'There was a problem on the way']],
    },
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
  $('decision-kind-box').hidden = !words.kinds;
  if (words.kinds) {
    $('decision-kind-label').textContent = words.kinds.label;
    $('decision-kind').replaceChildren(...words.kinds.options.map(([value, text]) => el('option', { value }, text)));
    $('decision-kind').value = 'OTHER';
  }
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
  /** @type {{reason: string, reasonKind?: string, riderIds?: string[]}} */
  const body = { reason };
  if (DECISIONS[kind].kinds) body.reasonKind = $('decision-kind').value;
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
