// @ts-check
// Signing in and out, and the server's view of the rider: profile, active task, availability.
import { offline } from './rider-api.js';
import { claims } from '../../sign-in.js';
import { t } from '../rider-i18n.js';
import {
  $, isFinal, state, api, queue, geo, fixes, saveCache, loadCache, pendingFor, displayTask,
  tripTaskIds,
} from './rider-state.js';
import { notify, problemText, isSuspended } from '../rider-notice.js';
import { render, showFinished } from '../rider-screens.js';
import { connectSocket, closeSocket } from './rider-stream.js';
import { fetchOffers } from '../Delivery/rider-offers.js';
import {
  refreshAccess, storedRefreshToken, forgetRefreshToken, claimRenewal, logout, resetSignIn,
} from './rider-sign-in.js';

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
  if (!reason) logout(state.token);
  clearTimeout(renewTimer);
  resetSignIn();
  sessionStorage.removeItem('riderToken');
  state.token = null;
  state.profile = null;
  state.task = null;
  state.offers.clear();
  state.accepting = false;
  closeSocket();
  queue.pause();
  if (state.navigation) state.navigation.end();
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
    if (state.token) renew(() => signOut(t('sessionExpired')));
  }, Math.min(wait, 2 ** 31 - 1));
}

export async function begin(token) {
  closeSocket();
  state.offers.clear();
  const problem = tokenProblem(token);
  if (problem) {
    signOut(problem);
    return;
  }
  sessionStorage.setItem('riderToken', token);
  state.token = token;
  const c = claims(token);
  scheduleRenewal(c);
  state.riderId = c.sub.toLowerCase();
  queue.forRider(state.riderId);
  if (queue.state === 'paused') queue.state = 'idle';
  const cached = loadCache();
  state.profile = cached && cached.profile ? cached.profile : null;
  state.task = cached ? cached.task : null;
  state.reported = cached ? cached.reported : null;
  if (!state.profile && offline()) {
    // No connection and never seen this rider here: the name from the token, the rest when the network returns.
    state.profile = { riderId: state.riderId, name: c.name || null, availability: 'UNKNOWN' };
  }
  render();
  const ok = await refresh({ boot: true });
  if (!state.token) return; // refused: back at sign-in with the reason
  if (ok === false && !state.profile) {
    state.profile = { riderId: state.riderId, name: c.name || null, availability: 'UNKNOWN' };
    render();
  }
  connectSocket();
  fetchOffers();
  queue.sync();
}

// --- The server's view: profile and active task ---------------------------------------------------------------

// Returns true when the server answered, false when it could not be reached (the page goes on with what it has).
export async function refresh({ boot = false } = {}) {
  if (!state.token) return false;
  const ticket = ++state.refreshing;
  const version = state.taskVersion;
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
    if (ticket !== state.refreshing || !state.token) return true;
    state.profile = profile;
    if (version === state.taskVersion) await adoptServerTask(task, { boot });
    saveCache();
    render();
    return true;
  } catch (error) {
    if (error.status === 401 || error.status === 403) refusedToken(error);
    else if (!error.network) notify(problemText(error));
    render();
    return false;
  }
}

// The server's task replaces the page's; a task that ended without the rider ending it was cancelled.
export async function adoptServerTask(task, { boot = false } = {}) {
  const previous = state.task;
  // With batching every task of the trip is live, not only the one to act on now.
  const live = tripTaskIds(task);
  if (previous && (!task || task.taskId !== previous.taskId)) {
    const ending = pendingFor(previous.taskId).some((item) => item.kind === 'status' && isFinal(item.status));
    await queue.reconcile(live);
    state.task = task;
    if (!ending && !live.includes(previous.taskId)) taskEnded(previous, 'cancelled');
  } else {
    if (boot || task) await queue.reconcile(live);
    state.task = task;
  }
  if (state.navigation) state.navigation.taskChanged(displayTask());
}

const DONE_WORDS = { delivered: 'deliveryComplete', failed: 'deliveryFailed', returned: 'orderReturned' };

export function taskEnded(task, how) {
  if (state.navigation) state.navigation.end();
  if (state.reported && state.reported.taskId === task.taskId) state.reported = null;
  if (how === 'cancelled') {
    notify(`${t('orderCancelled')}. ${t('cancelledStop')}`);
    return;
  }
  if (tripTaskIds(task).length > 1) {
    // More orders on the trip: a word under the bar, and on to the next stop.
    notify(t(DONE_WORDS[how]), 'success');
    return;
  }
  notify('');
  showFinished(task, how);
}

export async function toggleAvailability() {
  if (state.availabilityBusy || !state.profile) return;
  const goOnline = state.profile.availability !== 'ONLINE';
  state.availabilityBusy = true;
  render();
  try {
    const profile = await api.put('/api/v1/rider/availability', { status: goOnline ? 'ONLINE' : 'OFFLINE' });
    state.profile = profile;
    notify('');
    // Offline, an offer on screen would invite an Accept the server refuses: it goes, and the list is not asked.
    if (!goOnline) state.offers.clear();
    saveCache();
    if (goOnline) fetchOffers();
  } catch (error) {
    if (error.status === 401 || error.status === 403) {
      state.availabilityBusy = false;
      refusedToken(error);
      return;
    }
    notify(problemText(error));
    if (error.code === 'RIDER_HAS_ACTIVE_TASK') refresh();
  } finally {
    state.availabilityBusy = false;
    render();
  }
}
