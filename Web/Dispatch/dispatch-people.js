// @ts-check
// The People tab. An admin's: everyone who works in the operation, found by name or phone; add a rider, a
// dispatcher, an admin or a store's staff member (each gets an invitation by SMS), add a store; give anyone a phone
// or correct it; suspend and reinstate; see a person's sign-ins and end one. A dispatcher's: the riders, to add,
// suspend and reinstate (the server refuses a dispatcher anything about staff or admins: 403).
import { api, token } from './dispatch-api.js';
import { claims } from '../Shared/sign-in.js';
import { $, el } from './dispatch-state.js';

const ROLE_WORDS = { rider: 'Rider', vendor: 'Store staff', dispatcher: 'Dispatcher', admin: 'Admin' };
let people = [];
let vendors = [];

function say(id, text, isError = true) {
  $(id).textContent = text || '';
  $(id).className = isError ? 'error' : 'hint';
}

function isAdmin() {
  return (claims(token()) || {}).role === 'admin';
}

export async function loadPeople() {
  const q = $('people-q').value.trim();
  const only = isAdmin() ? '' : '&role=rider';
  try {
    const page = await api('GET', `/api/v1/people?limit=100${only}${q ? `&q=${encodeURIComponent(q)}` : ''}`);
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
  const admin = isAdmin();
  list.replaceChildren(...people.map((person) => {
    const facts = [ROLE_WORDS[person.role] || person.role, person.phone || 'no phone yet'];
    if (person.vehicle) facts.push(person.vehicle.toLowerCase());
    if (person.suspended) facts.push('suspended');
    const sessions = el('ul', { class: 'sessions', id: `sessions-${person.personId}` });
    const phone = el('div', { class: 'person-phone', id: `phone-${person.personId}` });
    return el('li', { class: person.suspended ? 'person suspended' : 'person' },
      el('strong', {}, person.name), el('span', { class: 'hint' }, ` · ${facts.join(' · ')}`),
      el('div', { class: 'person-actions' },
        el('button', { type: 'button', onclick: () => setSuspended(person, !person.suspended) },
          person.suspended ? `Reinstate ${person.name}` : `Suspend ${person.name}`),
        admin ? el('button', { type: 'button', onclick: () => editPhone(person) },
          person.phone ? `Correct ${person.name}\u2019s phone` : `Add ${person.name}\u2019s phone`) : null,
        admin ? el('button', { type: 'button', onclick: () => showSessions(person) }, 'Sign-ins') : null),
      phone, sessions);
  }));
  $('people-empty').hidden = people.length > 0;
}

// A phone for someone who has none (a rider first met through a token) or a wrong one: an admin's to give.
function editPhone(person) {
  const box = $(`phone-${person.personId}`);
  const id = `phone-input-${person.personId}`;
  const input = el('input', { id, type: 'tel', inputmode: 'tel', value: person.phone || '', placeholder: $('person-phone').placeholder });
  const problem = el('p', { class: 'error', role: 'alert' });
  const form = el('form', { class: 'phone-form' },
    el('label', { for: id }, `New phone for ${person.name}`), input,
    el('button', { type: 'submit', class: 'primary' }, 'Save the phone'),
    el('button', { type: 'button', onclick: () => box.replaceChildren() }, 'Keep as it is'), problem);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await api('PATCH', `/api/v1/people/${person.personId}`, { phone: input.value.replace(/[\s\-().]/g, '') });
      say('people-error', `${person.name}\u2019s phone is now ${input.value.trim()}.`, false);
      await loadPeople();
    } catch (error) {
      problem.textContent = error.code === 'PHONE_IN_USE' ? 'Someone already has this phone number.' : error.message;
    }
  });
  box.replaceChildren(form);
  input.focus();
}

// Admins change anyone through the people routes; dispatchers their riders through the riders' own.
async function setSuspended(person, suspended) {
  if (suspended && !window.confirm(`Suspend ${person.name}? Their sign-ins end at once.`)) return;
  const path = isAdmin() ? `/api/v1/people/${person.personId}` : `/api/v1/riders/${person.personId}`;
  try {
    await api('PATCH', path, { suspended });
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

// What a dispatcher may do is a part of an admin's: the riders (the server says 403 to the rest).
export function openPeople() {
  const admin = isAdmin();
  $('people-title').textContent = admin ? 'People' : 'Riders: add and suspend';
  $('person-title').textContent = admin ? 'Add a person' : 'Add a rider';
  for (const option of $('person-role').options) option.hidden = !admin && option.value !== 'rider';
  if (!admin) $('person-role').value = 'rider';
  $('person-role-box').hidden = !admin;
  $('store-form').hidden = !admin;
  roleChosen();
  loadPeople();
  if (admin) loadVendors();
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
