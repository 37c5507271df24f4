// @ts-check
// The offer screen (RDR-012): offers from the list and the stream, the countdown, road distances, Accept Task
// (one retry when the answer is lost) and Decline.
import { offline } from '../Connection/rider-api.js';
import { t, distanceText } from '../rider-i18n.js';
import { $, metres, currentOffer, tripTaskIds } from '../Connection/rider-state.js';
import { notify, problemText, isSuspended } from '../rider-notice.js';
import { render } from '../rider-screens.js';
import { refresh, refusedToken, adoptServerTask } from '../Connection/rider-session.js';

/** @typedef {import('../Connection/rider-state.js').Rider} Rider */
/** @type {Rider['store']} */ let store;
/** @type {Rider['api']} */ let api;
/** @type {Rider['geo']} */ let geo;

/** @param {Rider} rider */
export function initOffers(rider) {
  ({ store, api, geo } = rider);
}

const ACCEPT_TIMEOUT_MS = 5000; // RiderKit's acceptTimeout, then one automatic retry

export async function fetchOffers() {
  const { token, profile } = store.get();
  if (!token || offline() || (profile && profile.availability === 'OFFLINE')) return;
  try {
    const list = await api.get('/api/v1/rider/offers');
    const now = Date.now();
    const { offers, dismissed } = store.get();
    const more = new Map(offers);
    for (const offer of list.offers || []) {
      if (offer.status && offer.status !== 'OPEN') continue;
      if (more.has(offer.offerId) || dismissed.has(offer.offerId)) continue;
      const seconds = Number.isFinite(offer.secondsLeft) ? offer.secondsLeft : (Date.parse(offer.expiresAt) - now) / 1000;
      if (seconds <= 0) continue;
      more.set(offer.offerId, { offer, deadline: now + seconds * 1000, totalMs: Math.max(seconds, 1) * 1000, message: '' });
    }
    if (more.size > offers.size) {
      store.update({ offers: more });
      notify('');
      render();
    }
  } catch (error) {
    if (error.status === 401 || error.status === 403) refusedToken(error);
  }
}

// An offer whose time ran out (a rider who looked away) leaves by itself, saying so; one being accepted waits for
// the server's answer.
/** @param {string} id */
function dropOffer(id) {
  store.update((state) => {
    const offers = new Map(state.offers);
    offers.delete(id);
    // A list fetched meanwhile does not bring it back.
    return { offers, dismissed: new Set(state.dismissed).add(id) };
  });
}

// An offer gone from the phone meanwhile (run out, taken) is not brought back for its words.
/**
 * @param {string} id
 * @param {string} message
 */
function setMessage(id, message) {
  store.update((state) => {
    const entry = state.offers.get(id);
    return entry ? { offers: new Map(state.offers).set(id, { ...entry, message }) } : {};
  });
}

export function sweepOffers() {
  let expired = false;
  const state = store.get();
  const shown = currentOffer(state);
  for (const [id, entry] of state.offers) {
    if (entry.deadline + 1000 < Date.now() && !(state.accepting && entry === shown)) {
      dropOffer(id);
      if (entry === shown) expired = true;
    }
  }
  if (expired) notify(t('offerExpired'));
  const next = currentOffer(store.get());
  if (expired || shown?.offer.offerId !== next?.offer.offerId) render();
  else tickOffer();
}

export function renderOffer() {
  const { accepting } = store.get();
  const entry = currentOffer(store.get());
  const offer = entry.offer;
  $('offer-store').textContent = offer.pickup ? offer.pickup.name : '';
  $('offer-store-address').textContent = offer.pickup ? offer.pickup.address : '';
  $('offer-dropoff').textContent = offer.dropoff ? offer.dropoff.address : '';
  $('offer-distances').textContent = offerDistances(offer);
  const button = $('accept');
  button.disabled = accepting;
  button.setAttribute('aria-busy', accepting ? 'true' : 'false');
  button.textContent = accepting ? t('accepting') : t('acceptTask');
  button.classList.toggle('busy', accepting);
  $('decline').disabled = accepting;
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
  const entry = currentOffer(store.get());
  if (!entry || store.get().screen !== 'offer') return;
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
  const entry = currentOffer(store.get());
  if (!entry || store.get().accepting) return;
  const id = entry.offer.offerId;
  store.update({ accepting: true });
  setMessage(id, '');
  render();
  const path = `/api/v1/rider/offers/${encodeURIComponent(id)}/accept`;
  try {
    let task;
    try {
      task = await api.post(path, undefined, { timeoutMs: ACCEPT_TIMEOUT_MS });
    } catch (error) {
      // One automatic retry when the first attempt got no answer in time; a refusal is final at once.
      if (error.permanent || error.status === 401 || error.status === 403) throw error;
      task = await api.post(path, undefined, { timeoutMs: ACCEPT_TIMEOUT_MS });
    }
    for (const offerId of [...store.get().offers.keys()]) dropOffer(offerId);
    store.update((state) => ({ taskVersion: state.taskVersion + 1 }));
    await adoptServerTask(task);
    store.update((state) => ({ profile: { ...state.profile, availability: 'ON_TASK', activeTaskId: task.taskId } }));
    notify('');
    // Added to a trip: the stop to make next may be another order's.
    if (tripTaskIds(task).length > 1) refresh();
  } catch (error) {
    if (error.status === 401 || isSuspended(error)) {
      store.update({ accepting: false });
      refusedToken(error);
      return;
    }
    if (error.code === 'RIDER_NOT_ONLINE') {
      // Off the screen while offline (no live Accept the server refuses); back if the rider goes online in time.
      store.update((state) => ({ profile: { ...state.profile, availability: 'OFFLINE' } }));
      notify(t('notOnline'));
    } else if (error.permanent) {
      dropOffer(id);
      notify(problemText(error));
      if (error.code === 'RIDER_HAS_ACTIVE_TASK') refresh();
    } else {
      setMessage(id, t('acceptFailed'));
    }
  } finally {
    store.update({ accepting: false });
    render();
  }
}

export async function decline() {
  const entry = currentOffer(store.get());
  if (!entry || store.get().accepting) return;
  dropOffer(entry.offer.offerId);
  render();
  try {
    await api.post(`/api/v1/rider/offers/${encodeURIComponent(entry.offer.offerId)}/decline`);
  } catch (error) {
    if (error.status === 401) refusedToken(error);
    // Otherwise the offer simply runs out.
  }
}
