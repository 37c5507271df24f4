// @ts-check
// The task screen (SEQ-UJ-003): the stops, the one primary status button, arrival far from the customer (RDR-018),
// reporting a problem, marking failed, calling, and navigation (its code loaded on first use).
import { offline } from '../Connection/rider-api.js';
import { t, config } from '../rider-i18n.js';
import {
  $, show, pendingFor, displayTask, nextStopKind, metres, point, tripTaskIds,
} from '../Connection/rider-state.js';
import { notify, ask } from '../rider-notice.js';
import { render, envNotes, fillNotes } from '../rider-screens.js';
import { taskEnded } from './rider-task-end.js';
import { record } from '../rider-taps.js';
import { renderProof, proofAccepted, focusProof } from './rider-proof-screen.js';
import { locationProblem } from './rider-location.js';

/** @typedef {import('../Connection/rider-state.js').Rider} Rider */
/** @type {Rider['store']} */ let store;
/** @type {Rider['api']} */ let api;
/** @type {Rider['geo']} */ let geo;
/** @type {Rider['queue']} */ let queue;

/** @param {Rider} rider */
export function initTask(rider) {
  ({ store, api, geo, queue } = rider);
}

// The primary button's words for each status a rider moves a task to; which one shows comes from the task's
// allowedNext (FAILED has a button of its own, after a reported problem).
/** @type {Record<string, string>} */
const PRIMARY_WORDS = {
  ARRIVED_AT_STORE: 'arrivedAtStore', PICKED_UP: 'pickedUp', ARRIVED_AT_DESTINATION: 'arrivedAtDestination',
  DELIVERED: 'delivered', RETURNED_TO_STORE: 'returnedToStore',
};
const STEP_TEXT = {
  ACCEPTED: 'stepToStore', ARRIVED_AT_STORE: 'stepAtStore', PICKED_UP: 'stepToCustomer', ARRIVED_AT_DESTINATION: 'stepAtCustomer',
  RETURNING_TO_STORE: 'stepReturning',
};

export function renderTask() {
  const task = displayTask(store.get(), queue);
  const { navigation, reported: report } = store.get();
  const navigating = Boolean(navigation && navigation.visible);
  show($('nav'), navigating);
  show($('task-head'), !navigating);
  show($('task-details'), !navigating);
  $('task').classList.toggle('navigating', navigating);
  document.body.classList.toggle('navigating', navigating);

  $('task-title').textContent = task.externalRef ? t('taskTitleRef', { ref: task.externalRef }) : t('taskTitle');
  $('task-status').textContent = t(STEP_TEXT[task.status] || 'stepToStore');
  // Before pickup, or sent back by the dispatcher: the store is where the rider goes.
  const beforePickup = nextStopKind(task.status) === 'STORE';
  $('store-card').classList.toggle('current', beforePickup);
  $('customer-card').classList.toggle('current', !beforePickup);
  $('store-name').textContent = task.vendor.name;
  $('store-address').textContent = task.vendor.address;
  $('customer-name').textContent = task.customer.name;
  $('customer-address').textContent = task.customer.address;
  const note = $('customer-note');
  note.textContent = task.notes ? t('note', { note: task.notes }) : '';
  show(note, Boolean(task.notes));
  const phone = task.customer.phoneMasked || task.customer.phone || '';
  $('customer-phone').textContent = phone ? t('phone', { phone }) : '';
  // Only the operator's call-masking number connects; a masked number cannot be dialled.
  show($('call'), Boolean(task.customer.phone));

  // At the door there is nowhere left to drive: the proof is the next step.
  const atDoor = task.status === 'ARRIVED_AT_DESTINATION';
  const resumable = !atDoor && Boolean(navigation && navigation.canResume(task));
  show($('navigate-vendor'), beforePickup && !resumable);
  show($('navigate-customer'), !beforePickup && !atDoor && !resumable);
  show($('resume-navigation'), resumable);

  fillNotes($('task-notes'), envNotes());
  renderTrip(task);

  renderProof(task);

  const reported = report && report.taskId === task.taskId;
  show($('mark-failed'), reported && task.allowedNext.includes('FAILED'));
  const failing = pendingFor(queue, task.taskId).some((item) => item.kind === 'status' && item.status === 'FAILED');
  $('mark-failed').disabled = failing;

  const status = task.allowedNext.find((next) => next in PRIMARY_WORDS) || null;
  const key = status ? PRIMARY_WORDS[status] : null;
  const primary = $('primary');
  show(primary, Boolean(status));
  if (status) {
    primary.textContent = t(key);
    primary.dataset.status = status;
    const needsProof = status === 'DELIVERED' && !proofAccepted(task);
    primary.disabled = needsProof || failing;
    $('primary-hint').textContent = needsProof ? t(proofNeeded(task)) : failing ? t('failingHint') : '';
  }
}

// The proof this task still needs, in the words of its type.
function proofNeeded(task) {
  const proof = task.proofOfDelivery || {};
  return task.podType === 'OTP' && !proof.otpLocked ? 'deliveredNeedsCode' : 'deliveredNeedsPhoto';
}

// With batching the rider carries several orders: every stop in sequence, made ones ticked, the current one marked.
function renderTrip(task) {
  const batched = tripTaskIds(task).length > 1;
  show($('trip'), batched);
  if (!batched) return;
  $('trip-stops').replaceChildren(...task.stops.map((stop) => {
    const item = document.createElement('li');
    const words = t(stop.kind === 'STORE' ? 'tripPickup' : 'tripDropoff', { name: stop.name, ref: stop.externalRef || '' });
    item.textContent = stop.done ? `${words} ✓` : words;
    item.className = stop.done ? 'done' : stop.current ? 'current' : '';
    if (stop.current) item.setAttribute('aria-current', 'step');
    return item;
  }));
}

async function tapStatus(status, extra = {}) {
  const task = displayTask(store.get(), queue);
  if (!task) return;
  // Without a position the tap still goes (rider-taps.js sends it with the reason); the screen says why.
  const problem = locationProblem(geo);
  if (problem) notify(problem);
  const action = await record('status', { status, confirmed: Boolean(extra.confirmed), reason: extra.reason || null, ...extra.at });
  if (!action) return;
  // Arriving at a store is arriving for every order of the trip waiting there: one tap, not one per order.
  if (status === 'ARRIVED_AT_STORE') {
    for (const stop of task.stops || []) {
      if (stop.kind !== 'STORE' || stop.taskId === task.taskId || stop.status !== 'ACCEPTED') continue;
      if (metres(stop.location, task.vendor.location) > 50) continue;
      await record('status', { status, taskId: stop.taskId, confirmed: false, reason: null });
    }
  }
  if (status === 'DELIVERED') taskEnded(task, 'delivered');
  if (status === 'RETURNED_TO_STORE') taskEnded(task, 'returned');
  const { navigation } = store.get();
  // At the door the drive is over (taskChanged ends it): the proof (code, photo) is what the rider needs now.
  if (navigation) navigation.taskChanged(displayTask(store.get(), queue));
  render();
  if (status === 'ARRIVED_AT_DESTINATION') focusProof();
}

// RDR-018: further than the server's radius from the customer asks first; only Confirm records the tap.
async function arrive() {
  const task = displayTask(store.get(), queue);
  if (!task) return;
  const tappedAt = new Date().toISOString();
  const fix = geo.recent();
  const radius = Number.isFinite(task.geofenceRadiusM) ? task.geofenceRadiusM : 500;
  let confirmed = false;
  // Far from the door, or nowhere known (no GPS): the rider confirms the arrival the server cannot check.
  const question = !fix && !geo.simulating ? 'unknownPlaceQuestion'
    : fix && metres(fix, task.customer.location) > radius ? 'farQuestion' : null;
  if (question) {
    confirmed = await ask(t(question), [['cancel', t('cancel')], ['confirm', t('confirm'), true]]) === 'confirm';
    if (!confirmed) return;
  }
  await tapStatus('ARRIVED_AT_DESTINATION', { confirmed, at: { occurredAt: tappedAt, location: point(fix) } });
}

export function primaryTapped(event) {
  // A double tap on a phone is one tap: the button under the finger changes to the next step at once.
  if (event.detail > 1) return;
  const status = $('primary').dataset.status;
  if (status === 'ARRIVED_AT_DESTINATION') arrive();
  else if (status) tapStatus(status);
}

export async function markFailed() {
  const task = displayTask(store.get(), queue);
  if (!task || !store.get().reported) return;
  const sure = await ask(t('failQuestion'), [['cancel', t('cancel')], ['fail', t('markFailed'), true]]);
  if (sure !== 'fail') return;
  await tapStatus('FAILED', { reason: store.get().reported.type });
}

/** @type {Promise<import('../Navigation/rider-nav.js').NavigationView> | null} */
let navigationLoading = null;

function navigationView() {
  if (!navigationLoading) {
    navigationLoading = import('../Navigation/rider-nav.js').then(({ NavigationView }) => {
      const navigation = new NavigationView({
        api, geo, config, onChange: () => render(),
      });
      store.update({ navigation });
      return navigation;
    });
    navigationLoading.catch(() => {
      navigationLoading = null;
    });
  }
  return navigationLoading;
}

export async function navigate() {
  const task = displayTask(store.get(), queue);
  if (!task) return;
  if (!geo.simulating && ['denied', 'insecure', 'unavailable'].includes(geo.status) && config.demo !== true) {
    notify(t(geo.status === 'denied' ? 'locationDenied' : geo.status === 'insecure' ? 'locationInsecure' : 'locationUnavailable'));
    return;
  }
  try {
    const view = await navigationView();
    await view.start(displayTask(store.get(), queue) || task);
  } catch (error) {
    notify(offline() ? t('navOffline') : t('somethingWrong'));
  }
  render();
}

export async function resumeNavigation() {
  const { navigation } = store.get();
  if (!navigation) return;
  await navigation.resume();
  render();
}

export function call() {
  const task = displayTask(store.get(), queue);
  if (!task) return;
  const number = task.customer.phone || '';
  if (number) {
    window.location.href = `tel:${number.replace(/[^\d+]/g, '')}`;
  } else {
    notify(t('phoneHidden', { phone: number }));
  }
}
