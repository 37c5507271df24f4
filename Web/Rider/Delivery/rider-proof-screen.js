// @ts-check
// The proof of delivery on the task screen: Capture Photo (shrunk and uploaded by rider-proof.js, loaded on first
// use), Enter OTP with the attempts left, and what became of the proof.
import { offline } from '../Connection/rider-api.js';
import { t } from '../rider-i18n.js';
import { $, show, pendingFor, point } from '../Connection/rider-state.js';
import { notify } from '../rider-notice.js';
import { render } from '../rider-screens.js';
import { locationReady } from './rider-location.js';
import { record } from '../rider-taps.js';

/** @typedef {import('../Connection/rider-state.js').Rider} Rider */
/** @type {Rider['store']} */ let store;
/** @type {Rider['geo']} */ let geo;
/** @type {Rider['queue']} */ let queue;

/** @param {Rider} rider */
export function initProofScreen(rider) {
  ({ store, geo, queue } = rider);
}

export function proofAccepted(task) {
  const proof = task.proofOfDelivery || {};
  return Boolean(proof.accepted || proof.overridden);
}

export function renderProof(task) {
  const section = $('proof');
  const atDoor = task.status === 'ARRIVED_AT_DESTINATION';
  show(section, atDoor);
  if (!atDoor) return;
  const proof = task.proofOfDelivery || {};
  const accepted = proofAccepted(task);
  const pending = pendingFor(queue, task.taskId).filter((item) => item.kind === 'otp' || item.kind === 'photo');
  const photo = task.podType === 'PHOTO' || proof.otpLocked || proof.overridden;
  show($('proof-photo'), !accepted && photo);
  show($('proof-otp'), !accepted && task.podType === 'OTP' && !proof.otpLocked);
  const left = proof.otpAttemptsRemaining;
  $('otp-attempts').textContent = Number.isFinite(left) && left < 5 ? t('otpAttemptsLeft', { n: left }) : '';
  const progress = $('photo-progress');
  const uploading = queue.progress && pending.some((item) => item.seq === queue.progress.seq && item.kind === 'photo');
  show(progress, Boolean(uploading));
  if (uploading) progress.value = Math.round(queue.progress.fraction * 100);
  let status = '';
  if (accepted) status = proof.overridden && !proof.accepted ? t('proofWaived') : t('proofAccepted');
  else if (store.get().photoBusy) status = t('photoPreparing');
  else if (pending.length) status = offline() || queue.state === 'retrying' ? t('proofWaiting') : t('proofSending');
  else if (proof.awaitingOverride) status = proof.photoSent ? t('proofAwaitingDispatcher') : t('otpLocked');
  $('proof-status').textContent = status;
  section.classList.toggle('done', accepted);
}

// Just arrived: the rider's next move is the proof, so the code field (or the camera button) takes the focus and
// comes into view.
export function focusProof() {
  const target = !$('proof-otp').hidden ? $('otp') : !$('proof-photo').hidden ? $('photo') : null;
  if (!target || $('proof').hidden) return;
  $('proof').scrollIntoView({ block: 'nearest' });
  target.focus({ preventScroll: true });
}

export async function submitOtp(event) {
  event.preventDefault();
  const box = $('otp');
  const value = box.value.trim();
  if (!/^\d{4}$/.test(value)) {
    notify(t('otpFormat'));
    box.focus();
    return;
  }
  if (!locationReady(geo)) return;
  box.value = '';
  await record('otp', { value });
  render();
}

export async function photoChosen() {
  const input = $('photo');
  const file = input.files && input.files[0];
  input.value = '';
  if (!file) {
    notify(t('cameraHint'));
    return;
  }
  if (!locationReady(geo)) return;
  const capturedAt = new Date().toISOString();
  const fix = point(geo.recent());
  store.update({ photoBusy: true });
  render();
  try {
    const { shrinkPhoto } = await import('./rider-proof.js');
    const preview = $('photo-preview');
    const shrunk = await shrinkPhoto(file, preview);
    show(preview, shrunk.shrunk);
    await record('photo', { photo: shrunk.blob, occurredAt: capturedAt, location: fix });
  } catch (error) {
    notify(t('photoFailed'));
  } finally {
    store.update({ photoBusy: false });
    render();
  }
}
