// @ts-check
// Taps: stored at once in the queue, then sent in order; the server's answers and its refusals.
import { uuid } from './Connection/rider-api.js';
import { t } from './rider-i18n.js';
import { isFinal, point, pendingFor, displayTask, tripTaskIds } from './Connection/rider-state.js';
import { notify, problemText, ask } from './rider-notice.js';
import { render } from './rider-screens.js';
import { taskEnded } from './Delivery/rider-task-end.js';

/** @typedef {import('./Connection/rider-state.js').Rider} Rider */
/** @type {Rider['store']} */ let store;
/** @type {Rider['api']} */ let api;
/** @type {Rider['geo']} */ let geo;
/** @type {Rider['fixes']} */ let fixes;
/** @type {Rider['queue']} */ let queue;

/** @param {Rider} rider */
export function initTaps(rider) {
  ({ store, api, geo, fixes, queue } = rider);
}

// The server's view again, and the offers, asked of their modules through the store.
function refresh() {
  store.update((state) => ({ refreshWanted: state.refreshWanted + 1 }));
}

function fetchOffers() {
  store.update((state) => ({ offersWanted: state.offersWanted + 1 }));
}

export async function record(kind, fields) {
  const task = displayTask(store.get(), queue);
  if (!task) return null;
  const action = {
    id: uuid(), riderId: store.get().riderId, taskId: task.taskId, kind, occurredAt: new Date().toISOString(),
    location: point(geo.recent()), ...fields,
  };
  try {
    await queue.record(action);
  } catch (error) {
    notify(t('couldNotSave'));
    return null;
  }
  fixes.keep(geo.recent());
  fixes.flush();
  queue.sync();
  return action;
}

// What the queue sends, by kind. Throws ApiError; the queue retries or stops as RiderKit's does.
// How long a status tap waits for a first fix before it goes without one (with the reason, which the server keeps).
const FIX_WAIT_MS = 8000;

// Why the phone has no position, in the server's words.
function noLocationReason() {
  if (geo.status === 'denied') return 'PERMISSION_DENIED';
  if (geo.status === 'insecure') return 'INSECURE_ORIGIN';
  return 'NO_FIX';
}

export async function send(action, onProgress) {
  let location = action.location;
  let withoutLocation = null;
  if (!location && (action.kind !== 'issue')) {
    location = point(geo.recent());
    if (!location) {
      const reason = noLocationReason();
      const waited = Date.now() - Date.parse(action.occurredAt);
      if (action.kind !== 'status' || (reason === 'NO_FIX' && waited < FIX_WAIT_MS)) {
        // A tap before the first fix: it goes with the first fix that comes, or (a status) after a few seconds
        // without one.
        store.update({ waitingForLocation: true });
        const error = Object.assign(new Error('waiting for a location'), { network: true });
        throw error;
      }
      // No position to be had: the last one known, however old, or none; either way the server hears why.
      withoutLocation = reason;
      location = point(geo.last);
      notify(t('sentWithoutLocation', { reason: t(`noLocation.${reason}`) }));
    }
  }
  store.update({ waitingForLocation: false });
  const base = `/api/v1/rider/tasks/${encodeURIComponent(action.taskId)}`;
  const key = { 'Idempotency-Key': action.id };
  switch (action.kind) {
    case 'status': {
      const body = {
        status: action.status, occurredAt: action.occurredAt, eventId: action.id,
        farFromDestinationConfirmed: Boolean(action.confirmed),
      };
      if (location) body.location = location;
      if (withoutLocation) body.noLocationReason = withoutLocation;
      if (action.reason) body.reason = action.reason;
      const task = await api.patch(`${base}/status`, body);
      serverTaskChanged(task);
      return;
    }
    case 'otp':
      await api.post(`${base}/pod`, { type: 'OTP', value: action.value, capturedAt: action.occurredAt, location }, { headers: key });
      markProofAccepted(action.taskId);
      return;
    case 'photo': {
      const { uploadPhoto } = await import('./Delivery/rider-proof.js');
      const proof = await uploadPhoto({ taskId: action.taskId, token: store.get().token, action: { ...action, location }, onProgress });
      // After a locked code the photo is evidence for the dispatcher, whose override completes the delivery.
      if (proof && proof.awaitingOverride) markAwaitingOverride(action.taskId);
      else markProofAccepted(action.taskId);
      return;
    }
    case 'issue': {
      const body = { type: action.type, occurredAt: action.occurredAt };
      if (action.note) body.note = action.note;
      if (location) body.location = { lat: location.lat, lon: location.lon, accuracyM: location.accuracyM };
      const issue = await api.post(`${base}/issues`, body, { headers: key });
      const notified = (issue && issue.notified) || [];
      notify(t(notified.includes('CUSTOMER') ? 'issueToldBoth' : 'issueToldDispatcher'), 'success');
      return;
    }
    default:
      return;
  }
}

function changeProof(taskId, fields) {
  const { task } = store.get();
  if (task && task.taskId === taskId) {
    store.update((state) => ({
      task: { ...task, proofOfDelivery: { ...(task.proofOfDelivery || {}), ...fields } }, taskVersion: state.taskVersion + 1,
    }));
  }
}

function markAwaitingOverride(taskId) {
  changeProof(taskId, { awaitingOverride: true, photoSent: true });
}

function markProofAccepted(taskId) {
  changeProof(taskId, { accepted: true });
}

// The server's answer to a status change is the task as it now stands.
function serverTaskChanged(task) {
  store.update((state) => ({ taskVersion: state.taskVersion + 1 }));
  const previous = store.get().task;
  // An ended task has no stops left: the trip as the page last had it tells whether other orders remain.
  const others = [...tripTaskIds(previous), ...tripTaskIds(task)].filter((id) => id !== task.taskId);
  const trip = others.length > 0;
  if (isFinal(task.status)) {
    store.update((state) => ({
      task: null, profile: trip ? state.profile : { ...state.profile, availability: 'ONLINE', activeTaskId: null },
    }));
    if (previous && task.status === 'FAILED') taskEnded(previous, 'failed');
    const { navigation } = store.get();
    if (navigation) navigation.end();
    setTimeout(() => {
      refresh();
      fetchOffers();
    }, 0);
    return;
  }
  store.update({ task });
  // On a trip the next stop may be another order's: the server says which task comes next.
  if (trip) setTimeout(() => refresh(), 0);
}

// A tap the server refused for good: said, dropped, and the page takes the server's view again.
export async function refused(action, error) {
  const task = store.get().task;
  switch (error.code) {
    case 'ORDER_CANCELLED':
      await queue.dropTask(action.taskId);
      if (task && task.taskId === action.taskId) {
        store.update((state) => ({ task: null, taskVersion: state.taskVersion + 1 }));
        taskEnded(task, 'cancelled');
        refresh();
      }
      return null;
    case 'GEOFENCE_CONFIRMATION_REQUIRED': {
      const answer = await ask(t('farQuestion'), [['cancel', t('cancel')], ['confirm', t('confirm'), true]]);
      if (answer === 'confirm') return { ...action, id: uuid(), confirmed: true };
      // Nothing that needed the arrival can go either.
      for (const item of pendingFor(queue, action.taskId)) {
        if (item.kind === 'otp' || item.kind === 'photo' || (item.kind === 'status' && isFinal(item.status))) await queue.remove(item);
      }
      render();
      return null;
    }
    case 'INVALID_OTP': {
      const left = error.problem.attemptsRemaining;
      notify(Number.isFinite(left) ? t('otpWrong', { n: left }) : t('otpWrongNoCount'));
      if (task && task.proofOfDelivery && Number.isFinite(left)) {
        store.update({ task: { ...task, proofOfDelivery: { ...task.proofOfDelivery, otpAttemptsRemaining: left } } });
      }
      break;
    }
    case 'OTP_LOCKED':
      notify(t('otpLocked'));
      // Only a dispatcher's override completes it now; a photo is evidence for them.
      if (task && task.proofOfDelivery) {
        store.update({ task: { ...task, proofOfDelivery: { ...task.proofOfDelivery, otpLocked: true, otpAttemptsRemaining: 0, awaitingOverride: true } } });
      }
      break;
    default:
      if (action.kind === 'status' && action.status === 'FAILED' && Number.isFinite(error.problem.waitSeconds)) {
        notify(t('failWait', { minutes: Math.max(1, Math.ceil(error.problem.waitSeconds / 60)) }));
      } else {
        notify(problemText(error));
      }
  }
  store.update((state) => ({ taskVersion: state.taskVersion + 1 }));
  render();
  refresh();
  return null;
}
