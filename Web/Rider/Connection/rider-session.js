// @ts-check
// Signing in and out, and the server's view of the rider: profile, active task, availability.
import { offline } from './rider-api.js';
import { claims } from '../../Shared/sign-in.js';
import { t } from '../rider-i18n.js';
import { $, loadCache } from './rider-state.js';
import { notify, problemText, isSuspended } from '../rider-notice.js';
import { render } from '../rider-screens.js';
import { adoptServerTask } from '../Delivery/rider-task-end.js';
import {
  refreshAccess, storedRefreshToken, forgetRefreshToken, claimRenewal, logout, resetSignIn,
} from './rider-sign-in.js';

/** @typedef {import('./rider-state.js').Rider} Rider */
/** @type {Rider['store']} */ let store;
/** @type {Rider['api']} */ let api;
/** @type {Rider['geo']} */ let geo;
/** @type {Rider['fixes']} */ let fixes;
/** @type {Rider['queue']} */ let queue;

/** @param {Rider} rider */
export function initSession(rider) {
  ({ store, api, geo, fixes, queue } = rider);
  // What other modules ask of the session they ask through the store: a fresh look at the server's view, or a
  // token the server refused. Answered after the update that asked, never inside it.
  store.subscribe((state, previous) => {
    if (state.refreshWanted !== previous.refreshWanted) queueMicrotask(() => refresh());
    if (state.refusal && state.refusal !== previous.refusal) {
      const refusal = state.refusal;
      queueMicrotask(() => {
        store.update({ refusal: null });
        refusedToken(refusal);
      });
    }
  });
}

// The offers are the offers module's to fetch: it hears of it from the store.
function askForOffers() {
  store.update((state) => ({ offersWanted: state.offersWanted + 1 }));
}

let renewTimer = null;

export function tokenFromAddress() {
  const fragment = new URLSearchParams(location.hash.slice(1)).get('token');
  if (location.hash) history.replaceState(null, '', location.pathname + location.search); // the token leaves the bar
  // A development link is a sign-in of its own: an earlier phone sign-in's refresh token must not take over.
  if (fragment) forgetRefreshToken();
  return fragment ? fragment.trim() : null;
}

// `reason` is shown on the sign-in screen; none means the rider chose to sign out, which ends the sign-in on the
// server too.
export function signOut(reason) {
  if (!reason) logout(store.get().token);
  clearTimeout(renewTimer);
  resetSignIn();
  sessionStorage.removeItem('riderToken');
  // The stream closes itself when the token goes (rider-stream.js follows the token in the store).
  store.update({ token: null, profile: null, task: null, offers: new Map(), accepting: null });
  queue.pause();
  const { navigation } = store.get();
  if (navigation) navigation.end();
  geo.stop();
  fixes.setDuty('offDuty');
  notify('');
  $('sign-in-error').textContent = reason || '';
  render();
}

// A refused token: an expired access token is renewed with the refresh token (once in a while, not in a loop);
// anything else, or a refused renewal, is back to sign-in with the reason.
export function refusedToken(error) {
  if (error.status === 401 && claimRenewal()) {
    renew(() => signOut(t('sessionExpired')));
    return;
  }
  if (isSuspended(error)) signOut(t('suspended'));
  else if (error.status === 403) signOut(t('notRider'));
  else signOut(t('sessionExpired'));
}

// Checks what can be checked on the phone (the token's role and expiry) before asking the server.
function tokenProblem(token) {
  const c = claims(token);
  if (!c || !c.sub) return t('badToken');
  if (c.role && c.role !== 'rider') return t('notRider');
  if (c.exp && c.exp * 1000 < Date.now()) return t('sessionExpired');
  return null;
}

async function renew(otherwise) {
  const renewed = await refreshAccess();
  if (typeof renewed === 'string') begin(renewed);
  else if (!renewed) otherwise();
  // No connection: the current token stays until the network returns.
}

// A new access token a minute before this one runs out, so a shift is never interrupted by it.
function scheduleRenewal(c) {
  clearTimeout(renewTimer);
  if (!c.exp || !storedRefreshToken()) return;
  const wait = Math.max(5000, c.exp * 1000 - Date.now() - 60000);
  renewTimer = setTimeout(() => {
    if (store.get().token) renew(() => signOut(t('sessionExpired')));
  }, Math.min(wait, 2 ** 31 - 1));
}

export async function begin(token) {
  store.update({ offers: new Map() });
  const problem = tokenProblem(token);
  if (problem) {
    signOut(problem);
    return;
  }
  sessionStorage.setItem('riderToken', token);
  store.update({ token });
  const c = claims(token);
  scheduleRenewal(c);
  const riderId = c.sub.toLowerCase();
  store.update({ riderId });
  queue.forRider(riderId);
  if (queue.state === 'paused') queue.state = 'idle';
  const cached = loadCache(riderId);
  store.update({
    profile: cached && cached.profile ? cached.profile : null, task: cached ? cached.task : null,
    reported: cached ? cached.reported : null,
  });
  const unknown = { riderId, name: c.name || null, availability: 'UNKNOWN' };
  // No connection and never seen this rider here: the name from the token, the rest when the network returns.
  if (!store.get().profile && offline()) store.update({ profile: unknown });
  render();
  const ok = await refresh({ boot: true });
  if (!store.get().token) return; // refused: back at sign-in with the reason
  if (ok === false && !store.get().profile) {
    store.update({ profile: unknown });
    render();
  }
  askForOffers();
  queue.sync();
}

// --- The server's view: profile and active task ---------------------------------------------------------------

// Returns true when the server answered, false when it could not be reached (the page goes on with what it has).
export async function refresh({ boot = false } = {}) {
  if (!store.get().token) return false;
  store.update((state) => ({ refreshing: state.refreshing + 1 }));
  const { refreshing: ticket, taskVersion: version } = store.get();
  try {
    const profile = await api.get('/api/v1/rider/me');
    let task = null;
    if (profile.activeTaskId) {
      try {
        task = await api.get('/api/v1/rider/tasks/active');
      } catch (error) {
        if (error.code !== 'NO_ACTIVE_TASK') throw error;
      }
    }
    if (ticket !== store.get().refreshing || !store.get().token) return true;
    store.update({ profile });
    if (version === store.get().taskVersion) await adoptServerTask(task, { boot });
    render();
    return true;
  } catch (error) {
    if (error.status === 401 || error.status === 403) refusedToken(error);
    else if (!error.network) notify(problemText(error));
    render();
    return false;
  }
}

export async function toggleAvailability() {
  const { availabilityBusy, profile } = store.get();
  if (availabilityBusy || !profile) return;
  const goOnline = profile.availability !== 'ONLINE';
  store.update({ availabilityBusy: true });
  render();
  try {
    const answer = await api.put('/api/v1/rider/availability', { status: goOnline ? 'ONLINE' : 'OFFLINE' });
    store.update({ profile: answer });
    notify('');
    // Offline, an offer on screen would invite an Accept the server refuses: it goes, and the list is not asked.
    if (!goOnline) store.update({ offers: new Map() });
    if (goOnline) askForOffers();
  } catch (error) {
    if (error.status === 401 || error.status === 403) {
      store.update({ availabilityBusy: false });
      refusedToken(error);
      return;
    }
    notify(problemText(error));
    if (error.code === 'RIDER_HAS_ACTIVE_TASK') refresh();
  } finally {
    store.update({ availabilityBusy: false });
    render();
  }
}
