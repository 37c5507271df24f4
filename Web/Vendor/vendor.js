// @ts-check
// The store's page (GET /vendor): its staff sign in with their phone and an SMS code (as the store: role vendor),
// see the store's open orders as they change, and mark an order ready when it is packed. Everything comes from the
// API with the staff member's token; the page holds nothing of its own.
import { claims, createSignIn, keptAccessToken } from '../Shared/sign-in.js';
import { HANDOVER, riderLine, stageWords, tickUndo, undoButton } from './vendor-pickup.js';

// The page's element of that id, typed any: callers use it as the input, form or dialog they know it is.
/** @type {(id: string) => any} */
const $ = (id) => document.getElementById(id);
const KEY = 'vendorToken';
const REFRESH_KEY = 'vendorRefreshToken';
/**
 * An order as the store's page reads it from GET /api/v1/orders.
 * @typedef {{orderId: string, externalRef?: string | null, status: string,
 *   customer?: {name?: string, address?: string}}} StoreOrder
 */
/** @type {Record<string, string>} */
const WORDS = {
  PENDING_VENDOR_ACCEPTANCE: 'New: waiting for you', PREPARING: 'Being prepared', READY_FOR_PICKUP: 'Ready, waiting for a rider',
  RIDER_ASSIGNED: 'A rider is on the way', IN_TRANSIT: 'On its way to the customer', ARRIVED_AT_DESTINATION: 'At the customer',
  RETURNING_TO_STORE: 'Coming back to the store',
};
const { wireSignIn, resetSignIn, refreshAccess, claimRenewal, logout } = createSignIn({
  refreshKey: REFRESH_KEY, roles: ['vendor'],
  wrongRole: 'This phone is not a store\u2019s. Riders sign in at /rider, dispatchers at /dispatch.',
});
/** @type {ReturnType<typeof setInterval> | undefined} */
let refresher;
/** @type {ReturnType<typeof setInterval> | undefined} */
let ticker;
let readFailed = false;

function token() {
  return keptAccessToken(KEY, REFRESH_KEY);
}

/** @param {string} method @param {string} path @returns {Promise<any>} */
async function api(method, path) {
  const response = await fetch(path, { method, headers: { Authorization: `Bearer ${token()}` }, cache: 'no-store' });
  const body = response.status === 204 ? {} : await response.json().catch(() => ({}));
  if (response.status === 401) {
    await renewOrSignOut();
    throw new Error('Signing in again');
  }
  if (!response.ok) throw Object.assign(new Error(body.title || `The server answered ${response.status}`), { code: body.code });
  return body;
}

async function renewOrSignOut() {
  if (claimRenewal()) {
    const renewed = await refreshAccess();
    if (typeof renewed === 'string') {
      sessionStorage.setItem(KEY, renewed);
      return;
    }
  }
  signOut('Your sign-in has ended: sign in again.');
}

/**
 * @param {string} tag
 * @param {Record<string, any>} props
 * @param {...(Node | string)} children
 */
function el(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'onclick') element.addEventListener('click', value);
    else /** @type {any} */ (element)[key] = value;
  }
  for (const child of children) element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return element;
}

// The handover of the orders a rider may be coming for; one that cannot be read shows the order as before.
/** @param {StoreOrder[]} orders @returns {Promise<Map<string, any>>} */
async function pickups(orders) {
  const waiting = orders.filter((order) => HANDOVER.includes(order.status));
  const answers = await Promise.all(waiting.map((order) => api('GET', `/api/v1/orders/${order.orderId}/pickup`)
    .catch(() => null)));
  return new Map(waiting.map((order, index) => [order.orderId, answers[index]]));
}

async function loadOrders() {
  try {
    const page = await api('GET', '/api/v1/orders?open=true&limit=200');
    /** @type {StoreOrder[]} */
    const orders = page.orders || [];
    const handovers = await pickups(orders);
    $('open-count').textContent = String(orders.length);
    $('orders').replaceChildren(...orders.map((order) => {
      const pickup = handovers.get(order.orderId);
      const actions = el('div', { className: 'actions' });
      if (['PENDING_VENDOR_ACCEPTANCE', 'PREPARING'].includes(order.status)) {
        actions.append(el('button', { type: 'button', className: 'primary', onclick: () => markReady(order) },
          `${order.externalRef || 'Order'} is ready`));
      }
      if (pickup && pickup.undoableUntil) actions.append(undoButton(pickup, () => undoReady(order)));
      const line = pickup && riderLine(pickup);
      return el('li', {},
        el('span', { className: 'ref' }, order.externalRef || order.orderId.slice(0, 8)),
        el('span', { className: 'status' }, (pickup && stageWords(pickup)) || WORDS[order.status] || order.status),
        el('div', {}, `${order.customer?.name || 'Customer'} · ${order.customer?.address || ''}`),
        line ? el('div', { className: 'rider' }, line) : '',
        actions);
    }));
    $('orders-empty').hidden = orders.length > 0;
    // A failed read's words go once the list reads again; what an action said stays until the next action.
    if (readFailed) $('store-error').textContent = '';
    readFailed = false;
  } catch (error) {
    if (token()) {
      $('store-error').textContent = `The orders could not be read: ${error.message}`;
      readFailed = true;
    }
  }
}

// The list is read again first; then the error line says what went wrong, or is cleared after a success (a failed
// read's words stay).
/** @param {StoreOrder} order */
async function markReady(order) {
  let problem = '';
  try {
    await api('POST', `/api/v1/orders/${order.orderId}/ready`);
  } catch (error) {
    problem = `${order.externalRef || 'The order'} could not be marked ready: ${error.message}`;
  }
  await loadOrders();
  if (problem || !readFailed) $('store-error').textContent = problem;
}

/** @param {StoreOrder} order */
async function undoReady(order) {
  let problem = '';
  try {
    await api('POST', `/api/v1/orders/${order.orderId}/ready/undo`);
  } catch (error) {
    const late = error.code === 'READY_UNDO_EXPIRED'
      ? ' (only within a minute). Call the dispatcher if the order must wait.' : '';
    problem = `${order.externalRef || 'The order'}: ${error.message}${late}`;
  }
  await loadOrders();
  if (problem || !readFailed) $('store-error').textContent = problem;
}

async function start() {
  $('sign-in').hidden = true;
  $('store').hidden = false;
  $('sign-out').hidden = false;
  try {
    const store = await api('GET', `/api/v1/vendors/${(claims(token()) || {}).sub}`);
    $('store-title').textContent = store.name;
    $('store-facts').textContent = store.address;
  } catch {
    $('store-title').textContent = 'Your store';
  }
  await loadOrders();
  clearInterval(refresher);
  refresher = setInterval(loadOrders, 10_000);
  clearInterval(ticker);
  ticker = setInterval(() => tickUndo($('orders')), 1000);
}

/** @param {string} reason */
function signOut(reason, isError = true) {
  clearInterval(refresher);
  clearInterval(ticker);
  sessionStorage.removeItem(KEY);
  resetSignIn();
  $('store').hidden = true;
  $('sign-out').hidden = true;
  $('sign-in').hidden = false;
  $('store-title').textContent = 'Store';
  $('sign-in-error').textContent = reason || '';
  $('sign-in-error').className = isError ? 'error' : 'hint';
}

$('sign-out').addEventListener('click', () => {
  logout(token());
  signOut('You have signed out.', false);
});
wireSignIn((accessToken) => {
  sessionStorage.setItem(KEY, accessToken);
  start();
});
if (token()) start();
else refreshAccess().then((renewed) => {
  if (typeof renewed === 'string') {
    sessionStorage.setItem(KEY, renewed);
    start();
  }
});
