// @ts-check
// The offer screen (RDR-012): every open offer at once from the list and the stream, newest on top, each with its
// countdown, road distances, Accept Task (one retry when the answer is lost) and Decline.
import { offline } from '../Connection/rider-api.js';
import { t, distanceText } from '../rider-i18n.js';
import { $, metres, openOffers, tripTaskIds } from '../Connection/rider-state.js';
import { notify, problemText, isSuspended } from '../rider-notice.js';
import { render } from '../rider-screens.js';
import { adoptServerTask } from './rider-task-end.js';

/** @typedef {import('../Connection/rider-state.js').Rider} Rider */
/** @type {Rider['store']} */ let store;
/** @type {Rider['api']} */ let api;
/** @type {Rider['geo']} */ let geo;

/** @param {Rider} rider */
export function initOffers(rider) {
  ({ store, api, geo } = rider);
  // Other modules ask for the offers through the store (signed in, online again, the server's word on the stream).
  store.subscribe((state, previous) => {
    if (state.offersWanted !== previous.offersWanted) queueMicrotask(fetchOffers);
  });
}

// The session's work, asked through the store: the rider's view again, or a token the server refused.
function askForRefresh() {
  store.update((state) => ({ refreshWanted: state.refreshWanted + 1 }));
}

/** @param {{status?: number, detail?: string, title?: string}} error */
function refuse(error) {
  store.update({ refusal: { status: error.status, detail: error.detail || '', title: error.title || '' } });
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
    if (error.status === 401 || error.status === 403) refuse(error);
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
  const state = store.get();
  let gone = 0;
  for (const [id, entry] of state.offers) {
    if (entry.deadline + 1000 < Date.now() && state.accepting !== id) {
      dropOffer(id);
      gone++;
    }
  }
  // The last offer on screen ran out: the rider is told why it went. With others left, its card simply goes.
  if (gone && !openOffers(store.get()).length) notify(t('offerExpired'));
  if (gone) render();
  else tickOffers();
}

// One card per open offer, newest on top (the latest to run out, as every offer gets the same time), each with its
// own countdown and buttons. A card stays the same element while its offer lasts, so a countdown ticks in place and
// a button under the rider's finger is not replaced.
/** @type {Map<string, HTMLElement>} */
const cards = new Map();

export function renderOffer() {
  const state = store.get();
  const entries = openOffers(state);
  $('offer-title').textContent = entries.length > 1 ? t('offersTitle', { n: entries.length }) : t('offerTitle');
  const ids = new Set(entries.map((entry) => entry.offer.offerId));
  for (const id of [...cards.keys()]) if (!ids.has(id)) cards.delete(id);
  const list = $('offer-list');
  const wanted = entries.map((entry) => {
    const id = entry.offer.offerId;
    const card = cards.get(id) || newCard(id);
    cards.set(id, card);
    fillCard(card, entry, state.accepting);
    return card;
  });
  const shown = [...list.children];
  if (shown.length !== wanted.length || shown.some((card, index) => card !== wanted[index])) {
    list.replaceChildren(...wanted);
  }
  tickOffers();
}

/** @param {string} id */
function newCard(id) {
  const card = document.createElement('li');
  card.className = 'card offer-card';
  card.dataset.offerId = id;
  card.innerHTML = `<p class="offer-ref"></p><p class="countdown"><span class="seconds" aria-live="off"></span> <span></span></p>
<div class="meter" aria-hidden="true"><div class="bar"></div></div>
<dl class="stops"><dt></dt><dd><strong class="store"></strong><span class="store-address"></span></dd>
<dt></dt><dd class="dropoff"></dd><dt></dt><dd class="distances"></dd></dl>
<p class="error offer-message" role="alert"></p>
<div class="buttons"><button type="button" class="primary accept"></button>
<button type="button" class="secondary decline"></button></div>`;
  const [toAccept] = card.querySelectorAll('.countdown span:last-child');
  toAccept.textContent = t('toAccept');
  const terms = card.querySelectorAll('dt');
  ['pickup', 'dropoff', 'distances'].forEach((key, index) => { terms[index].textContent = t(key); });
  card.querySelector('.accept').addEventListener('click', () => accept(id));
  card.querySelector('.decline').addEventListener('click', () => decline(id));
  return card;
}

/**
 * @param {HTMLElement} card
 * @param {import('../Connection/rider-state.js').OfferEntry} entry
 * @param {string | null} accepting
 */
function fillCard(card, entry, accepting) {
  const offer = entry.offer;
  /** @type {(selector: string) => any} */
  const part = (selector) => card.querySelector(selector);
  // The order's reference: two offers from one store are told apart by it, as the store and the dispatcher say it.
  part('.offer-ref').textContent = offer.externalRef ? t('doneOrder', { ref: offer.externalRef }) : '';
  part('.offer-ref').hidden = !offer.externalRef;
  part('.store').textContent = offer.pickup ? offer.pickup.name : '';
  part('.store-address').textContent = offer.pickup ? offer.pickup.address : '';
  part('.dropoff').textContent = offer.dropoff ? offer.dropoff.address : '';
  part('.distances').textContent = offerDistances(offer);
  const mine = accepting === offer.offerId;
  const button = part('.accept');
  button.disabled = Boolean(accepting);
  button.setAttribute('aria-busy', mine ? 'true' : 'false');
  button.textContent = mine ? t('accepting') : t('acceptTask');
  button.classList.toggle('busy', mine);
  part('.decline').textContent = t('decline');
  part('.decline').disabled = Boolean(accepting);
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

function tickOffers() {
  const state = store.get();
  if (state.screen !== 'offer') return;
  for (const entry of state.offers.values()) {
    const card = cards.get(entry.offer.offerId);
    if (!card) continue;
    const left = Math.max(0, Math.ceil((entry.deadline - Date.now()) / 1000));
    card.querySelector('.seconds').textContent = t('seconds', { n: left });
    const bar = /** @type {HTMLElement} */ (card.querySelector('.bar'));
    bar.style.width = `${Math.min(100, (100 * Math.max(0, entry.deadline - Date.now())) / Math.max(1, entry.totalMs))}%`;
    bar.className = left <= 10 ? 'bar low' : 'bar';
    const message = card.querySelector('.offer-message');
    if (left === 0 && !entry.message) message.textContent = t('offerExpired');
    else message.textContent = entry.message || '';
  }
}

/** @param {string} id */
export async function accept(id) {
  const entry = store.get().offers.get(id);
  if (!entry || store.get().accepting) return;
  store.update({ accepting: id });
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
    if (tripTaskIds(task).length > 1) askForRefresh();
  } catch (error) {
    if (error.status === 401 || isSuspended(error)) {
      store.update({ accepting: null });
      refuse(error);
      return;
    }
    if (error.code === 'RIDER_NOT_ONLINE') {
      // Off the screen while offline (no live Accept the server refuses); back if the rider goes online in time.
      store.update((state) => ({ profile: { ...state.profile, availability: 'OFFLINE' } }));
      notify(t('notOnline'));
    } else if (error.permanent) {
      dropOffer(id);
      notify(problemText(error));
      if (error.code === 'RIDER_HAS_ACTIVE_TASK') askForRefresh();
    } else {
      setMessage(id, t('acceptFailed'));
    }
  } finally {
    store.update({ accepting: null });
    render();
  }
}

/** @param {string} id */
export async function decline(id) {
  if (!store.get().offers.has(id) || store.get().accepting) return;
  dropOffer(id);
  render();
  try {
    await api.post(`/api/v1/rider/offers/${encodeURIComponent(id)}/decline`);
  } catch (error) {
    if (error.status === 401) refuse(error);
    // Otherwise the offer simply runs out.
  }
}
