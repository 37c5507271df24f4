// @ts-check
// The orders: every open one (GET /api/v1/orders?open=true, page after page), problems first, then the longest
// waiting; and the search for any order, finished ones included, by words, rider, day and status.
import { api } from './dispatch-api.js';
import {
  $, FINAL, ORDER_WORDS, ago, el, emit, on, orderWords, reference, renderRows, riderName, state,
} from './dispatch-state.js';

const PAGE = 200;

export async function loadOpenOrders() {
  const open = new Set();
  let cursor = null;
  // Every page until the last: an order must never drop off the list because newer ones pushed it down.
  do {
    const page = await api('GET', `/api/v1/orders?open=true&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    for (const order of page.orders) {
      state.orders.set(order.orderId, order);
      open.add(order.orderId);
    }
    cursor = page.nextCursor;
  } while (cursor);
  state.open = open;
  emit('open-orders');
}

// An order read on its own (after an event or on the panel): kept in the list while open, dropped once finished.
export function keepOrder(order) {
  state.orders.set(order.orderId, order);
  if (FINAL.includes(order.status)) state.open.delete(order.orderId);
  else state.open.add(order.orderId);
}

function orderRow(order) {
  const problem = state.problems.get(order.orderId);
  const waited = FINAL.includes(order.status) ? [] : [' · ', ago(Date.parse(order.updatedAt))];
  return el('li', {},
    el('button', { type: 'button', class: `order-row${problem ? ' problem' : ''}`, onclick: () => emit('open-order', order.orderId) },
      el('span', { class: 'row-head' },
        el('strong', {}, reference(order)),
        el('span', { class: `chip status ${order.status.toLowerCase()}` }, orderWords(order), waited)),
      problem ? el('span', { class: 'row-problem' }, `⚠ ${problem.text}${problem.note ? ` — “${problem.note}”` : ''}`) : null,
      el('span', { class: 'row-line' }, `${order.vendor.name}, ${order.vendor.address} → ${order.customer.address}`),
      el('span', { class: 'row-line' }, `${order.customer.name} · ${order.customer.phone}`,
        order.assignedRiderId ? ` · Rider: ${riderName(order.assignedRiderId)}` : '')));
}

// Everything a row shows but the time, which moves on in place.
function rowSignature(order) {
  const problem = state.problems.get(order.orderId);
  return JSON.stringify([reference(order), orderWords(order), order.updatedAt, problem && problem.text, problem && problem.note,
    order.vendor, order.customer.address, order.customer.name, order.customer.phone, riderName(order.assignedRiderId)]);
}

export function renderOrders() {
  const open = [...state.open].map((id) => state.orders.get(id)).filter(Boolean);
  open.sort((a, b) => Number(state.problems.has(b.orderId)) - Number(state.problems.has(a.orderId))
    || Date.parse(a.updatedAt) - Date.parse(b.updatedAt));
  renderRows($('orders'), open, (order) => order.orderId, rowSignature, orderRow);
  $('orders-empty').hidden = open.length > 0;
  $('open-count').textContent = String(open.length);
  const problems = open.filter((order) => state.problems.has(order.orderId)).length;
  $('orders-badge').textContent = problems ? String(problems) : '';
  $('orders-badge').title = `${problems} ${problems === 1 ? 'order needs' : 'orders need'} you`;
  $('orders-badge').hidden = problems === 0;
}

// The search: `q` (reference, phone or name), a rider, a day (the dispatcher's local day) and a status.
let nextCursor = null;

function searchQuery() {
  const query = new URLSearchParams({ limit: '20' });
  const words = $('search-q').value.trim();
  if (words) query.set('q', words);
  if ($('search-rider').value) query.set('riderId', $('search-rider').value);
  const day = $('search-day').value;
  if (day) {
    const start = new Date(`${day}T00:00:00`);
    const end = new Date(start);
    end.setDate(end.getDate() + 1);
    query.set('createdFrom', start.toISOString());
    query.set('createdTo', end.toISOString());
  }
  const status = $('search-status').value;
  if (status === 'FINISHED') query.set('open', 'false');
  else if (status) query.set('status', status);
  return query;
}

async function search(more) {
  const query = searchQuery();
  if (more && nextCursor) query.set('cursor', nextCursor);
  const results = $('results');
  $('search-error').textContent = '';
  try {
    // URLSearchParams writes a space as '+', which the server reads as a plus (a phone's): spaces go as %20.
    const page = await api('GET', `/api/v1/orders?${query.toString().replace(/\+/g, '%20')}`);
    if (!more) results.replaceChildren();
    for (const order of page.orders) {
      state.orders.set(order.orderId, order);
      results.append(orderRow(order));
    }
    if (!more && page.orders.length === 0) results.append(el('li', { class: 'hint' }, 'No order matches.'));
    nextCursor = page.nextCursor;
    $('search-more').hidden = !nextCursor;
  } catch (error) {
    $('search-error').textContent = error.message;
  }
}

// The rider choice lists the fleet by name.
let choiceNames = '';

export function renderRiderChoice() {
  const select = $('search-rider');
  const chosen = select.value;
  const riders = [...state.riders.values()].sort((a, b) => (a.name || a.id).localeCompare(b.name || b.id));
  // Rebuilt only when the fleet changed: a list rebuilt under the dispatcher's finger would close on them.
  const names = riders.map((r) => `${r.id}${r.name}`).join();
  if (names === choiceNames) return;
  choiceNames = names;
  select.replaceChildren(el('option', { value: '' }, 'Any rider'),
    ...riders.map((r) => el('option', { value: r.id, selected: r.id === chosen }, r.name || `Rider ${r.id.slice(0, 8)}`)));
}

// The rider's step changed the badge's words (at the store now), not the order: the list is drawn again.
on('leg', () => renderOrders());

export function wireSearch() {
  const statuses = $('search-status');
  statuses.replaceChildren(el('option', { value: '' }, 'Any status'), el('option', { value: 'FINISHED' }, 'Finished'),
    ...Object.entries(ORDER_WORDS).map(([value, words]) => el('option', { value }, words)));
  $('search').addEventListener('submit', (event) => {
    event.preventDefault();
    search(false);
  });
  $('search-more').addEventListener('click', () => search(true));
}
