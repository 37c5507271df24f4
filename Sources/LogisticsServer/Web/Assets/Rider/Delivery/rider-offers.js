// @ts-check
// The offer screen (RDR-012): offers from the list and the stream, the countdown, road distances, Accept Task
// (one retry when the answer is lost) and Decline.
import { offline } from '../Connection/rider-api.js';
import { t, distanceText } from '../rider-i18n.js';
import { $, state, api, geo, saveCache, metres, currentOffer, tripTaskIds } from '../Connection/rider-state.js';
import { notify, problemText, isSuspended } from '../rider-notice.js';
import { render } from '../rider-screens.js';
import { refresh, refusedToken, adoptServerTask } from '../Connection/rider-session.js';

const ACCEPT_TIMEOUT_MS = 5000; // RiderKit's acceptTimeout, then one automatic retry

export async function fetchOffers() {
  if (!state.token || offline() || (state.profile && state.profile.availability === 'OFFLINE')) return;
  try {
    const list = await api.get('/api/v1/rider/offers');
    const now = Date.now();
    let added = false;
    for (const offer of list.offers || []) {
      if (offer.status && offer.status !== 'OPEN') continue;
      if (state.offers.has(offer.offerId) || state.dismissed.has(offer.offerId)) continue;
      const seconds = Number.isFinite(offer.secondsLeft) ? offer.secondsLeft : (Date.parse(offer.expiresAt) - now) / 1000;
      if (seconds <= 0) continue;
      state.offers.set(offer.offerId, { offer, deadline: now + seconds * 1000, totalMs: Math.max(seconds, 1) * 1000, message: '' });
      added = true;
    }
    if (added) {
      notify('');
      render();
    }
  } catch (error) {
    if (error.status === 401 || error.status === 403) refusedToken(error);
  }
}

// An offer whose time ran out (a rider who looked away) leaves by itself, saying so; one being accepted waits for
// the server's answer.
function dropOffer(id) {
  state.offers.delete(id);
  state.dismissed.add(id); // a list fetched meanwhile does not bring it back
}

export function sweepOffers() {
  let expired = false;
  const shown = currentOffer();
  for (const [id, entry] of state.offers) {
    if (entry.deadline + 1000 < Date.now() && !(state.accepting && entry === shown)) {
      dropOffer(id);
      if (entry === shown) expired = true;
    }
  }
  if (expired) notify(t('offerExpired'));
  if (expired || shown !== currentOffer()) render();
  else tickOffer();
}

export function renderOffer() {
  const entry = currentOffer();
  const offer = entry.offer;
  $('offer-store').textContent = offer.pickup ? offer.pickup.name : '';
  $('offer-store-address').textContent = offer.pickup ? offer.pickup.address : '';
  $('offer-dropoff').textContent = offer.dropoff ? offer.dropoff.address : '';
  $('offer-distances').textContent = offerDistances(offer);
  const button = $('accept');
  button.disabled = state.accepting;
  button.setAttribute('aria-busy', state.accepting ? 'true' : 'false');
  button.textContent = state.accepting ? t('accepting') : t('acceptTask');
  button.classList.toggle('busy', state.accepting);
  $('decline').disabled = state.accepting;
  tickOffer();
}

// Road distances as the offer carries them (distances.toStoreM: from the rider's last position, storeToCustomerM);
// where one is missing (no position yet, no route), the straight-line distance, marked as approximate.
function offerDistances(offer) {
  const parts = [];
  const road = offer.distances || {};
  const toStore = road.toStoreM;
  const toCustomer = road.storeToCustomerM;
  const here = geo.recent();
  if (Number.isFinite(toStore)) parts.push(t('toStore', { distance: distanceText(toStore) }));
  else if (here && offer.pickup) parts.push(t('toStoreAbout', { distance: distanceText(metres(here, offer.pickup.location)) }));
  if (Number.isFinite(toCustomer)) parts.push(t('toCustomer', { distance: distanceText(toCustomer) }));
  else if (offer.pickup && offer.dropoff) {
    parts.push(t('toCustomerAbout', { distance: distanceText(metres(offer.pickup.location, offer.dropoff.location)) }));
  }
  // Sent ahead while the store prepares the order: the rider knows the goods will be ready as they arrive.
  const readyAt = Date.parse(offer.expectedReadyAt || '');
  if (Number.isFinite(readyAt) && readyAt > Date.now()) {
    parts.push(t('readyIn', { minutes: Math.max(1, Math.round((readyAt - Date.now()) / 60000)) }));
  }
  if (offer.trip) {
    parts.push(t('addsToTrip', { pickup: offer.trip.pickupSequence, dropoff: offer.trip.dropoffSequence, count: offer.trip.stopCount }));
  }
  return parts.join(' · ');
}

function tickOffer() {
  const entry = currentOffer();
  if (!entry || state.screen !== 'offer') return;
  const left = Math.max(0, Math.ceil((entry.deadline - Date.now()) / 1000));
  $('countdown').textContent = t('seconds', { n: left });
  const bar = $('countdown-bar');
  bar.style.width = `${Math.min(100, (100 * Math.max(0, entry.deadline - Date.now())) / Math.max(1, entry.totalMs))}%`;
  bar.className = left <= 10 ? 'low' : '';
  const message = $('offer-message');
  if (left === 0 && !entry.message) message.textContent = t('offerExpired');
  else message.textContent = entry.message || '';
}

export async function accept() {
  const entry = currentOffer();
  if (!entry || state.accepting) return;
  state.accepting = true;
  entry.message = '';
  render();
  const path = `/api/v1/rider/offers/${encodeURIComponent(entry.offer.offerId)}/accept`;
  try {
    let task;
    try {
      task = await api.post(path, undefined, { timeoutMs: ACCEPT_TIMEOUT_MS });
    } catch (error) {
      // One automatic retry when the first attempt got no answer in time; a refusal is final at once.
      if (error.permanent || error.status === 401 || error.status === 403) throw error;
      task = await api.post(path, undefined, { timeoutMs: ACCEPT_TIMEOUT_MS });
    }
    for (const id of [...state.offers.keys()]) dropOffer(id);
    state.taskVersion++;
    await adoptServerTask(task);
    state.profile = { ...state.profile, availability: 'ON_TASK', activeTaskId: task.taskId };
    notify('');
    saveCache();
    // Added to a trip: the stop to make next may be another order's.
    if (tripTaskIds(task).length > 1) refresh();
  } catch (error) {
    if (error.status === 401 || isSuspended(error)) {
      state.accepting = false;
      refusedToken(error);
      return;
    }
    if (error.code === 'RIDER_NOT_ONLINE') {
      // Off the screen while offline (no live Accept the server refuses); back if the rider goes online in time.
      state.profile = { ...state.profile, availability: 'OFFLINE' };
      notify(t('notOnline'));
    } else if (error.permanent) {
      dropOffer(entry.offer.offerId);
      notify(problemText(error));
      if (error.code === 'RIDER_HAS_ACTIVE_TASK') refresh();
    } else {
      entry.message = t('acceptFailed');
    }
  } finally {
    state.accepting = false;
    render();
  }
}

export async function decline() {
  const entry = currentOffer();
  if (!entry || state.accepting) return;
  dropOffer(entry.offer.offerId);
  render();
  try {
    await api.post(`/api/v1/rider/offers/${encodeURIComponent(entry.offer.offerId)}/decline`);
  } catch (error) {
    if (error.status === 401) refusedToken(error);
    // Otherwise the offer simply runs out.
  }
}
