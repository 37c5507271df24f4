// @ts-check
// Which screen shows (sign-in, home, offer, task) and the parts every screen shares: the bar with the rider's name
// and Go Online / Go Offline, the retrying banner, notes about the browser; and what the GPS and fix uploader do.
import { offline } from './Connection/rider-api.js';
import { t, config } from './rider-i18n.js';
import { $, show, displayTask, openOffers } from './Connection/rider-state.js';

/** @typedef {import('./Connection/rider-state.js').Rider} Rider */
/** @type {Rider['store']} */ let store;
/** @type {Rider['geo']} */ let geo;
/** @type {Rider['fixes']} */ let fixes;
/** @type {Rider['queue']} */ let queue;

/** @type {{offer: () => void, task: () => void}} */
let screens = { offer: () => {}, task: () => {} };

/**
 * @param {Rider} rider
 * @param {{offer: () => void, task: () => void}} drawers How the offer and task screens draw themselves from the
 *   store, given by rider.js: those modules use this one's render, so this one does not import them.
 */
export function initScreens(rider, drawers) {
  ({ store, geo, fixes, queue } = rider);
  screens = drawers;
}

/** @param {Readonly<import('./Connection/rider-state.js').RiderState>} state */
function screenName(state) {
  // Until the queue is open and the token read, a signed-in rider must not see the sign-in form flash by.
  if (state.starting) return 'loading';
  if (!state.token) return 'sign-in';
  if (!state.profile) return 'loading';
  // The end of the rider's last order; on a trip the next stop follows at once instead.
  if (state.finished && !displayTask(state, queue)) return 'done';
  if (openOffers(state).length && state.profile.availability !== 'OFFLINE') return 'offer';
  if (displayTask(state, queue)) return 'task';
  return 'home';
}

export function render() {
  expireFinished();
  const screen = screenName(store.get());
  const changed = screen !== store.get().screen;
  store.update({ screen });
  for (const id of ['loading', 'sign-in', 'home', 'done', 'offer', 'task']) show($(id), id === screen);
  if (screen !== 'task') document.body.classList.remove('navigating');
  renderHeader(screen);
  renderQueue();
  if (screen === 'home') renderHome();
  if (screen === 'done') renderDone();
  if (screen === 'offer') screens.offer();
  if (screen === 'task') screens.task();
  updateDuty();
  if (changed) {
    const heading = $(screen)?.querySelector('h1');
    if (heading && screen !== 'loading') heading.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }
}

function renderHeader(screen) {
  const state = store.get();
  const profile = state.profile;
  const signedIn = Boolean(state.token && profile);
  $('rider-name').textContent = signedIn ? (profile.name || t('rider')) : t('appName');
  const availability = signedIn ? profile.availability : null;
  const chip = $('availability-status');
  chip.textContent = availability === 'ONLINE' ? t('online') : availability === 'OFFLINE' ? t('offline')
    : availability === 'ON_TASK' ? t('onTask') : '';
  chip.className = `chip ${availability ? availability.toLowerCase() : ''}`;
  show(chip, Boolean(chip.textContent));
  const toggle = $('availability');
  const canToggle = signedIn && ['ONLINE', 'OFFLINE'].includes(availability) && screen !== 'task';
  show(toggle, canToggle);
  if (canToggle) {
    toggle.textContent = t(availability === 'ONLINE' ? 'goOffline' : 'goOnline');
    toggle.className = `toggle ${availability === 'ONLINE' ? 'on' : 'off'}`;
    toggle.disabled = state.availabilityBusy;
    toggle.setAttribute('aria-busy', state.availabilityBusy ? 'true' : 'false');
  }
}

function renderQueue() {
  const state = store.get();
  const waiting = state.token ? queue.waiting : 0;
  const stuck = waiting > 0 && (queue.state === 'retrying' || offline());
  const banner = $('queue-banner');
  show(banner, stuck);
  if (stuck) {
    $('queue-text').textContent = state.waitingForLocation && !offline() ? t('waitingForLocation') : t('retrying');
    $('queue-count').textContent = t('waitingCount', { n: waiting });
  }
}

export function envNotes() {
  const notes = [];
  if (['denied', 'insecure', 'unavailable'].includes(geo.status) && !geo.simulating) {
    notes.push(t(geo.status === 'denied' ? 'locationDenied' : geo.status === 'insecure' ? 'locationInsecure' : 'locationUnavailable'));
    if (config.demo === true) notes.push(t('locationDemoHint'));
  }
  if (store.get().noServiceWorker) notes.push(t('noOfflineStart'));
  if (!queue.durable) notes.push(t('noStorage'));
  return notes;
}

export function fillNotes(list, notes) {
  list.replaceChildren(...notes.map((text) => Object.assign(document.createElement('li'), { textContent: text })));
  show(list, notes.length > 0);
}

function renderHome() {
  const { availability } = store.get().profile;
  // A delivery just tapped Delivered (still on its way to the server) ends with the rider online again.
  const online = availability === 'ONLINE' || availability === 'ON_TASK';
  show($('waiting'), online);
  show($('offline-hint'), availability === 'OFFLINE');
  fillNotes($('env-notes'), envNotes());
}

// --- The end of a delivery: stays until the rider taps Continue or DONE_MS pass, even when an offer comes in -----

const DONE_MS = 10000;
const DONE_TITLES = { delivered: 'deliveryComplete', failed: 'deliveryFailedTitle', returned: 'returnedTitle' };
let doneTimer = null;

export function showFinished(task, how) {
  store.update({ finished: { how, ref: task.externalRef || '', until: Date.now() + DONE_MS } });
  clearTimeout(doneTimer);
  doneTimer = setTimeout(render, DONE_MS + 50);
}

export function dismissFinished() {
  store.update({ finished: null });
  clearTimeout(doneTimer);
  render();
}

function expireFinished() {
  const { finished } = store.get();
  if (finished && Date.now() >= finished.until) store.update({ finished: null });
}

function renderDone() {
  const state = store.get();
  const { how, ref } = state.finished;
  $('done-title').textContent = t(DONE_TITLES[how] || 'deliveryComplete');
  $('done-order').textContent = ref ? t('doneOrder', { ref }) : '';
  $('done').classList.toggle('failed', how !== 'delivered');
  show($('done-next'), openOffers(state).length > 0 && state.profile.availability !== 'OFFLINE');
}

// --- Duty: what the GPS and the fix uploader do -------------------------------------------------------------

function updateDuty() {
  const state = store.get();
  const signedIn = Boolean(state.token && state.profile);
  const onTask = signedIn && Boolean(displayTask(state, queue));
  const online = signedIn && state.profile.availability === 'ONLINE';
  fixes.setDuty(onTask ? 'onTask' : online ? 'online' : 'offDuty');
  const navigating = Boolean(state.navigation && state.navigation.visible);
  if (onTask || online || navigating) geo.start();
  else geo.stop();
}

export function fixArrived(fix) {
  fixes.record(fix);
  if (store.get().waitingForLocation) {
    store.update({ waitingForLocation: false });
    queue.wake();
  }
  const { navigation } = store.get();
  if (navigation && navigation.visible) navigation.onFix(fix);
}
