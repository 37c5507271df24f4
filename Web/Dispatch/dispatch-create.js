// @ts-check
// A new order from the page: the store (a registered one, named by its id so its staff see the order; one known from
// earlier orders; or typed with a pin), the customer with an address and a pin dropped on the map (or an address an earlier order already placed),
// notes, the kind of proof, and ready now or after a preparation time.
import { api, newId } from './dispatch-api.js';
import { $, el, emit, state } from './dispatch-state.js';

/** @typedef {{lat: number, lon: number}} LatLon */
/** @typedef {{vendorId?: string, name: string, address: string, location: LatLon}} Store */
/** @typedef {'store' | 'customer'} PinTarget */

/** @type {PinTarget | null} 'store' or 'customer' while the dispatcher is placing a pin */
let pinFor = null;
/** @type {Record<PinTarget, LatLon | null>} */
const pins = { store: null, customer: null };
/** @type {string | null} one Idempotency-Key per order being entered: a double tap creates one order */
let formKey = null;
/** @type {{vendorId: string, name: string, address: string, location: LatLon}[]} */
let registered = [];
let wantedStore = ''; // a draft's store, chosen once the registered stores have been read

// The registered stores first (an order names them by id), then the one-off pickup places of earlier orders, each
// under a key that stays the same when the list is redrawn.
/** @returns {Map<string, Store>} */
function knownStores() {
  /** @type {(a: [string, Store], b: [string, Store]) => number} */
  const byName = (a, b) => a[1].name.localeCompare(b[1].name);
  /** @type {[string, Store][]} */
  const stores = registered.map((store) => [`id:${store.vendorId}`, store]);
  stores.sort(byName);
  /** @type {Map<string, Store>} */
  const oneOff = new Map();
  // A place typed by hand with a registered store's name and address is that store: it is not offered twice.
  const same = (/** @type {{name: string, address: string}} */ place) => `${place.name}\n${place.address}`.toLowerCase();
  const registeredPlaces = new Set(registered.map(same));
  for (const order of state.orders.values()) {
    if (order.vendorId || registeredPlaces.has(same(order.vendor))) continue;
    const key = `place:${order.vendor.name}\n${order.vendor.address}`;
    if (!oneOff.has(key)) oneOff.set(key, order.vendor);
  }
  return new Map([...stores, ...[...oneOff.entries()].sort(byName)]);
}

// The stores the company registered, read when the form opens; the list is redrawn when they arrive.
async function loadRegisteredStores() {
  try {
    registered = (await api('GET', '/api/v1/vendors?limit=200')).vendors || [];
  } catch (error) {
    console.warn('stores', error);
    return;
  }
  if (formKey) fillStoreChoice();
}

function fillStoreChoice() {
  const chosen = wantedStore || $('store-choice').value;
  const stores = knownStores();
  $('store-choice').replaceChildren(
    ...[...stores].map(([key, store]) => el('option', { value: key }, `${store.name} — ${store.address}`)),
    el('option', { value: 'new' }, 'Another store…'));
  if (chosen && [...$('store-choice').options].some((option) => option.value === chosen)) {
    $('store-choice').value = chosen;
    if (chosen === wantedStore) wantedStore = '';
  }
  $('store-choice').dataset.count = String(stores.size);
  $('store-new').hidden = stores.size > 0 && $('store-choice').value !== 'new';
}

function knownAddresses() {
  const places = new Map();
  for (const order of state.orders.values()) places.set(order.customer.address, order.customer.location);
  return places;
}

export function openCreate() {
  formKey = newId();
  pins.store = null;
  pins.customer = null;
  $('create').reset();
  $('create-error').textContent = '';
  fillStoreChoice();
  loadRegisteredStores();
  $('known-addresses').replaceChildren(...[...knownAddresses().keys()].map((address) => el('option', { value: address })));
  showPinStatus();
}

export function closeCreate() {
  stopPin();
  pins.store = null;
  pins.customer = null;
  formKey = null;
  wantedStore = '';
  state.pins = [];
}

export function placingPin() { return pinFor; }

/** @param {PinTarget} target */
function startPin(target) {
  pinFor = target;
  $('map-prompt-text').textContent = target === 'store' ? 'Tap the map where the store is' : 'Tap the map where the customer is';
  $('map-prompt').hidden = false;
  // On a phone the map is above the form: bring it into view for the tap.
  $('map-box').scrollIntoView({ behavior: 'smooth', block: 'start' });
}

export function stopPin() {
  pinFor = null;
  $('map-prompt').hidden = true;
}

// The map was tapped while placing a pin.
/**
 * @param {number} lat
 * @param {number} lon
 */
export function dropPin(lat, lon) {
  const target = pinFor;
  if (!target) return;
  pins[target] = { lat, lon };
  stopPin();
  showPinStatus();
  $(`${target}-pin-status`).scrollIntoView({ behavior: 'smooth', block: 'center' });
}

function showPinStatus() {
  for (const target of /** @type {PinTarget[]} */ (['store', 'customer'])) {
    const pin = pins[target];
    $(`${target}-pin-status`).textContent = pin ? `Pin at ${pin.lat.toFixed(5)}, ${pin.lon.toFixed(5)}` : '';
    $(`${target}-pin`).textContent = pin ? 'Move the pin' : (target === 'store' ? 'Pin the store on the map' : 'Drop a pin on the map');
  }
  state.pins = /** @type {import('../Shared/map.js').Marker[]} */ ([
    pins.store && { ...pins.store, colour: '#1d2127', shape: 'square', label: 'New store' },
    pins.customer && { ...pins.customer, colour: '#0b5cad', label: 'New customer' },
  ].filter(Boolean));
  emit('pins');
}

/** @returns {{vendorId?: string, name: string, address: string, location: {lat: number, lon: number}}} */
function storeFromForm() {
  const choice = $('store-choice').value;
  const known = choice !== 'new' && choice !== '' && knownStores().get(choice);
  if (known) return known;
  const name = $('store-name').value.trim();
  const address = $('store-address').value.trim();
  if (!name) throw new Error('Name the store, or choose one from the list');
  const pin = pins.store;
  if (!pin) throw new Error('Pin the store on the map');
  return { name, address: address || `Pin at ${pin.lat.toFixed(5)}, ${pin.lon.toFixed(5)}`, location: pin };
}

/** @returns {{address: string, location: LatLon}} */
function customerPlace() {
  const typed = $('customer-address').value.trim();
  const pin = pins.customer;
  if (pin) return { address: typed || `Pin at ${pin.lat.toFixed(5)}, ${pin.lon.toFixed(5)}`, location: pin };
  const known = knownAddresses().get(typed);
  if (known) return { address: typed, location: known };
  throw new Error('Drop a pin on the map for the customer (an address is found by itself only when an earlier order went there)');
}

// References people can read out on the phone: D, the day, and four letters or digits that are never confused.
function madeUpReference() {
  const letters = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
  const random = crypto.getRandomValues(new Uint8Array(4));
  const day = new Date();
  const date = `${String(day.getMonth() + 1).padStart(2, '0')}${String(day.getDate()).padStart(2, '0')}`;
  return `D${date}-${[...random].map((byte) => letters[byte % letters.length]).join('')}`;
}

/** @param {SubmitEvent} event */
async function submit(event) {
  event.preventDefault();
  const error = $('create-error');
  error.textContent = '';
  let body;
  try {
    const vendor = storeFromForm();
    const place = customerPlace();
    const readyLater = $('create').elements.ready.value === 'later';
    const minutes = Number($('prep-minutes').value);
    if (readyLater && !(Number.isInteger(minutes) && minutes >= 1 && minutes <= 240)) {
      throw new Error('The preparation time is a whole number of minutes from 1 to 240');
    }
    body = {
      externalRef: $('order-ref').value.trim() || madeUpReference(),
      ...(vendor.vendorId
        ? { vendorId: vendor.vendorId }
        : { vendor: { name: vendor.name, address: vendor.address, location: { lat: vendor.location.lat, lon: vendor.location.lon } } }),
      customer: {
        id: newId(), name: $('customer-name').value.trim(), phone: $('customer-phone').value.trim(),
        address: place.address, location: { lat: place.location.lat, lon: place.location.lon },
      },
      podType: $('create').elements.pod.value,
      notes: $('order-notes').value.trim() || undefined,
      preparationMinutes: readyLater ? minutes : undefined,
    };
  } catch (problem) {
    error.textContent = problem.message;
    return;
  }
  const button = $('create-submit');
  button.disabled = true;
  try {
    const order = await api('POST', '/api/v1/orders', body, { 'Idempotency-Key': String(formKey) });
    let ready = order;
    if (!body.preparationMinutes) ready = await api('POST', `/api/v1/orders/${order.orderId}/ready`);
    emit('order-created', ready);
  } catch (problem) {
    error.textContent = problem.message;
  } finally {
    button.disabled = false;
  }
}

export function wireCreate() {
  $('create').addEventListener('submit', submit);
  $('store-choice').addEventListener('change', () => { $('store-new').hidden = $('store-choice').value !== 'new'; });
  $('store-pin').addEventListener('click', () => startPin('store'));
  $('customer-pin').addEventListener('click', () => startPin('customer'));
  $('map-prompt-stop').addEventListener('click', stopPin);
  $('prep-minutes').addEventListener('focus', () => { $('create').elements.ready.value = 'later'; });
}

// ---- A draft kept across a sign-in that ended: what the dispatcher typed comes back after signing in again.

const DRAFT_KEY = 'dispatchDraft';
const DRAFT_FIELDS = ['store-choice', 'store-name', 'store-address', 'customer-name', 'customer-phone',
  'customer-address', 'order-notes', 'prep-minutes', 'order-ref'];

// Keeps the open form, if anything was typed in it; true when a draft was kept.
export function keepDraft() {
  if (!formKey) return false;
  /** @type {Record<string, string>} */
  const values = {};
  for (const id of DRAFT_FIELDS) values[id] = $(id).value;
  const typed = DRAFT_FIELDS.some((id) => id !== 'store-choice' && id !== 'prep-minutes' && values[id].trim());
  if (!typed && !pins.store && !pins.customer) return false;
  const form = $('create').elements;
  sessionStorage.setItem(DRAFT_KEY, JSON.stringify({
    values, pins, pod: form.pod.value, ready: form.ready.value, key: formKey,
  }));
  return true;
}

// Opens the form with a kept draft, once; false when there is none. The draft keeps its Idempotency-Key: an order
// the server took just before the sign-in ended is not created twice.
export function restoreDraft() {
  const text = sessionStorage.getItem(DRAFT_KEY);
  sessionStorage.removeItem(DRAFT_KEY);
  if (!text) return false;
  let draft;
  try {
    draft = JSON.parse(text);
  } catch {
    return false;
  }
  openCreate();
  formKey = draft.key || formKey;
  for (const id of DRAFT_FIELDS) if (typeof draft.values[id] === 'string') $(id).value = draft.values[id];
  wantedStore = draft.values['store-choice'] || '';
  fillStoreChoice();
  const form = $('create').elements;
  form.pod.value = draft.pod;
  form.ready.value = draft.ready;
  pins.store = draft.pins && draft.pins.store;
  pins.customer = draft.pins && draft.pins.customer;
  showPinStatus();
  return true;
}
