// @ts-check
// The admin's People tab: everyone who works in the operation, found by name or phone; add a rider, a dispatcher,
// an admin or a store's staff member (each gets an invitation by SMS), add a store; suspend and reinstate; see a
// person's sign-ins and end one.
import { api } from './dispatch-api.js';
import { $, el } from './dispatch-state.js';

const ROLE_WORDS = { rider: 'Rider', vendor: 'Store staff', dispatcher: 'Dispatcher', admin: 'Admin' };
let people = [];
let vendors = [];

function say(id, text, isError = true) {
  $(id).textContent = text || '';
  $(id).className = isError ? 'error' : 'hint';
}

export async function loadPeople() {
  const q = $('people-q').value.trim();
  try {
    const page = await api('GET', `/api/v1/people?limit=100${q ? `&q=${encodeURIComponent(q)}` : ''}`);
    people = page.people || [];
    say('people-error', '');
  } catch (error) {
    say('people-error', `People could not be read: ${error.message}`);
  }
  renderPeople();
}

async function loadVendors() {
  try {
    vendors = (await api('GET', '/api/v1/vendors?limit=200')).vendors || [];
  } catch {
    vendors = [];
  }
  const select = $('person-store');
  select.replaceChildren(...vendors.map((vendor) => el('option', { value: vendor.vendorId }, vendor.name)));
}

function renderPeople() {
  const list = $('people');
  list.replaceChildren(...people.map((person) => {
    const facts = [ROLE_WORDS[person.role] || person.role, person.phone || 'no phone yet'];
    if (person.vehicle) facts.push(person.vehicle.toLowerCase());
    if (person.suspended) facts.push('suspended');
    const sessions = el('ul', { class: 'sessions', id: `sessions-${person.personId}` });
    return el('li', { class: person.suspended ? 'person suspended' : 'person' },
      el('strong', {}, person.name), el('span', { class: 'hint' }, ` · ${facts.join(' · ')}`),
      el('div', { class: 'person-actions' },
        el('button', { type: 'button', onclick: () => setSuspended(person, !person.suspended) },
          person.suspended ? `Reinstate ${person.name}` : `Suspend ${person.name}`),
        el('button', { type: 'button', onclick: () => showSessions(person) }, 'Sign-ins')),
      sessions);
  }));
  $('people-empty').hidden = people.length > 0;
}

async function setSuspended(person, suspended) {
  if (suspended && !window.confirm(`Suspend ${person.name}? Their sign-ins end at once.`)) return;
  try {
    await api('PATCH', `/api/v1/people/${person.personId}`, { suspended });
    say('people-error', `${person.name} is ${suspended ? 'suspended; their sign-ins have ended' : 'reinstated'}.`, false);
    await loadPeople();
  } catch (error) {
    say('people-error', error.message);
  }
}

async function showSessions(person) {
  const box = $(`sessions-${person.personId}`);
  try {
    const { sessions } = await api('GET', `/api/v1/people/${person.personId}/sessions`);
    const rows = sessions.map((session) => {
      const started = new Date(session.createdAt).toLocaleString();
      const device = session.userAgent ? ` · ${session.userAgent.slice(0, 40)}` : '';
      if (!session.live) {
        return el('li', {}, `Signed in ${started}${device} · ended: ${session.revokedReason || 'expired'}`);
      }
      return el('li', {}, `Signed in ${started}${device} · last used ${new Date(session.lastUsedAt).toLocaleTimeString()} `,
        el('button', { type: 'button', onclick: () => revoke(person, session) }, 'End this sign-in'));
    });
    box.replaceChildren(...(rows.length ? rows : [el('li', { class: 'hint' }, 'Never signed in.')]));
  } catch (error) {
    box.replaceChildren(el('li', { class: 'error' }, error.message));
  }
}

async function revoke(person, session) {
  try {
    await api('DELETE', `/api/v1/sessions/${session.sessionId}`);
    await showSessions(person);
  } catch (error) {
    say('people-error', error.message);
  }
}

async function addPerson(event) {
  event.preventDefault();
  const role = $('person-role').value;
  const body = { name: $('person-name').value.trim(), phone: $('person-phone').value.replace(/[\s\-().]/g, '') };
  let path = '/api/v1/staff';
  if (role === 'rider') {
    path = '/api/v1/riders';
    body.vehicle = $('person-vehicle').value;
  } else if (role === 'vendor') {
    if (!$('person-store').value) {
      say('person-error', 'Add the store first.');
      return;
    }
    path = `/api/v1/vendors/${$('person-store').value}/staff`;
  } else {
    body.role = role;
  }
  try {
    const person = await api('POST', path, body);
    say('person-error', `${person.name} is added; an invitation is on its way to ${person.phone}.`, false);
    $('person-form').reset();
    roleChosen();
    await loadPeople();
  } catch (error) {
    say('person-error', error.code === 'PHONE_IN_USE' ? 'Someone already has this phone number.' : error.message);
  }
}

async function addStore(event) {
  event.preventDefault();
  const body = {
    name: $('store-name-new').value.trim(), address: $('store-address-new').value.trim(),
    location: { lat: Number($('store-lat').value), lon: Number($('store-lon').value) },
  };
  const phone = $('store-phone-new').value.replace(/[\s\-().]/g, '');
  if (phone) body.phone = phone;
  try {
    const vendor = await api('POST', '/api/v1/vendors', body);
    say('store-error', `${vendor.name} is added. Add its staff above.`, false);
    $('store-form').reset();
    await loadVendors();
  } catch (error) {
    say('store-error', error.message);
  }
}

function roleChosen() {
  const role = $('person-role').value;
  $('person-vehicle-box').hidden = role !== 'rider';
  $('person-store-box').hidden = role !== 'vendor';
}

// Shown to admins only (dispatchers get 403 for the people of the whole operation).
export function openPeople() {
  loadPeople();
  loadVendors();
}

export function wirePeople() {
  $('people-search').addEventListener('submit', (event) => {
    event.preventDefault();
    loadPeople();
  });
  $('person-role').addEventListener('change', roleChosen);
  $('person-form').addEventListener('submit', addPerson);
  $('store-form').addEventListener('submit', addStore);
  roleChosen();
}
