// The rider's app (GET /rider): sign-in, going online, offers, the task with its status buttons, navigation, proof
// of delivery, and taps that survive a lost connection. Everything goes through the rider API with the rider's token
// (from #token=… or the sign-in box, kept in sessionStorage). Navigation and the photo code load on first use.
import { createApi, uuid, claims, offline } from './rider-api.js';
import { t, translate, config, lang, distanceText } from './rider-i18n.js';
import { TapQueue } from './rider-queue.js';
import { Geo } from './rider-geo.js';
import { FixUploader } from './rider-fixes.js';

const $ = (id) => document.getElementById(id);
const NEXT = {
  ACCEPTED: ['ARRIVED_AT_STORE'], ARRIVED_AT_STORE: ['PICKED_UP'], PICKED_UP: ['ARRIVED_AT_DESTINATION', 'FAILED'],
  ARRIVED_AT_DESTINATION: ['DELIVERED', 'FAILED'],
};
const FINAL = ['DELIVERED', 'FAILED', 'CANCELLED'];
const PRIMARY = {
  ACCEPTED: ['ARRIVED_AT_STORE', 'arrivedAtStore'], ARRIVED_AT_STORE: ['PICKED_UP', 'pickedUp'],
  PICKED_UP: ['ARRIVED_AT_DESTINATION', 'arrivedAtDestination'], ARRIVED_AT_DESTINATION: ['DELIVERED', 'delivered'],
};
const STEP_TEXT = {
  ACCEPTED: 'stepToStore', ARRIVED_AT_STORE: 'stepAtStore', PICKED_UP: 'stepToCustomer', ARRIVED_AT_DESTINATION: 'stepAtCustomer',
};
// The requirement's words for the server's refusals (the server's own title where there is none).
const REFUSALS = {
  OFFER_EXPIRED: 'offerExpired', ORDER_ALREADY_ASSIGNED: 'orderAssigned', ORDER_CANCELLED: 'orderCancelled',
  RIDER_NOT_ONLINE: 'notOnline', RIDER_HAS_ACTIVE_TASK: 'hasTask', NAVIGATION_UNAVAILABLE: 'navUnavailable',
  OTP_LOCKED: 'otpLocked', POD_REQUIRED: 'podRequired', INVALID_STATUS_TRANSITION: 'notPossibleNow',
  RATE_LIMITED: 'rateLimited',
};
const ACCEPT_TIMEOUT_MS = 5000; // RiderKit's acceptTimeout, then one automatic retry

const state = {
  token: null, riderId: null, profile: null, task: null, offers: new Map(), dismissed: new Set(), accepting: false, availabilityBusy: false,
  screen: null, reported: null, refreshing: 0, taskVersion: 0, noServiceWorker: false,
  socket: null, socketRetryMs: 1000, socketTimer: null, socketOpen: false, socketProblem: null,
  navigation: null, navigationLoading: null, photoBusy: false, waitingForLocation: false,
};
const app = {
  frameTimes: [],
  queueLength: () => queue.count(),
  get reroutes() { return state.navigation ? state.navigation.reroutes : 0; },
  get screen() { return state.screen; },
  serviceWorkerReady: Promise.resolve(false),
};
window.riderApp = app;

const api = createApi(() => state.token);
const geo = new Geo({ onFix: fixArrived, onStatus: () => render() });
const fixes = new FixUploader(api);
const queue = new TapQueue({
  send, onChange: () => render(), onBlocked: refused, onUnauthorized: (error) => refusedToken(error),
});

// --- Small helpers --------------------------------------------------------------------------------------------

function show(element, visible) {
  element.hidden = !visible;
}

function isSuspended(error) {
  return error.status === 403 && /suspend/i.test(`${error.detail} ${error.title}`);
}

function problemText(error) {
  if (!error) return t('somethingWrong');
  if (error.network) return t('noConnectionTryAgain');
  const key = REFUSALS[error.code];
  if (key) return t(key);
  if (['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'].includes(error.code) && error.detail) {
    return `${error.title || t('somethingWrong')}: ${error.detail}`;
  }
  if (error.status >= 500) return t('serverTrouble');
  return error.title || t('somethingWrong');
}

function notify(text, kind = 'alert') {
  $('notice-text').textContent = text;
  $('notice').className = `notice ${kind}`;
  show($('notice'), Boolean(text));
}

function cacheKey() {
  return `riderCache:${state.riderId}`;
}

function saveCache() {
  if (!state.riderId) return;
  try {
    localStorage.setItem(cacheKey(), JSON.stringify({ profile: state.profile, task: state.task, reported: state.reported }));
  } catch (error) {
    // Storage full or refused: the page works on, only an offline start would lack the task.
  }
}

function loadCache() {
  try {
    return JSON.parse(localStorage.getItem(cacheKey()) || 'null');
  } catch (error) {
    return null;
  }
}

function point(fix) {
  return fix ? { lat: fix.lat, lon: fix.lon, accuracyM: Math.max(0, fix.accuracyM ?? 10) } : null;
}

function metres(a, b) {
  const rad = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2
    + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lon - a.lon) * rad) / 2) ** 2;
  return 2 * 6371008.8 * Math.atan2(Math.sqrt(h), Math.sqrt(1 - h));
}

// --- The task as the rider sees it: the server's, with the taps still waiting in the queue applied -------------

function pendingFor(taskId) {
  return queue.mine().filter((item) => item.taskId === taskId);
}

function nextStopFor(task, status) {
  if (['ACCEPTED', 'ARRIVED_AT_STORE'].includes(status)) {
    return { kind: 'store', name: task.vendor.name, address: task.vendor.address, location: task.vendor.location };
  }
  if (['PICKED_UP', 'ARRIVED_AT_DESTINATION'].includes(status)) {
    return { kind: 'customer', name: task.customer.name, address: task.customer.address, location: task.customer.location };
  }
  return null;
}

function displayTask() {
  const task = state.task;
  if (!task) return null;
  let status = task.status;
  for (const item of pendingFor(task.taskId)) {
    // FAILED waits for the server's word (it may ask the rider to wait for the customer longer).
    if (item.kind === 'status' && item.status !== 'FAILED') status = item.status;
  }
  if (FINAL.includes(status)) return null;
  if (status === task.status) return task;
  return { ...task, status, allowedNext: NEXT[status] || [], nextStop: nextStopFor(task, status) };
}

// --- Rendering --------------------------------------------------------------------------------------------------

function currentOffer() {
  let best = null;
  for (const entry of state.offers.values()) if (!best || entry.deadline < best.deadline) best = entry;
  return best;
}

function screenName() {
  // Until the queue is open and the token read, a signed-in rider must not see the sign-in form flash by.
  if (state.starting) return 'loading';
  if (!state.token) return 'sign-in';
  if (!state.profile) return 'loading';
  if (currentOffer()) return 'offer';
  if (displayTask()) return 'task';
  return 'home';
}

function render() {
  const screen = screenName();
  const changed = screen !== state.screen;
  state.screen = screen;
  for (const id of ['loading', 'sign-in', 'home', 'offer', 'task']) show($(id), id === screen);
  if (screen !== 'task') document.body.classList.remove('navigating');
  renderHeader(screen);
  renderQueue();
  if (screen === 'home') renderHome();
  if (screen === 'offer') renderOffer();
  if (screen === 'task') renderTask();
  updateDuty();
  if (changed) {
    const heading = $(screen)?.querySelector('h1');
    if (heading && screen !== 'loading') heading.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }
}

function renderHeader(screen) {
  const profile = state.profile;
  const signedIn = Boolean(state.token && profile);
  $('rider-name').textContent = signedIn ? (profile.name || t('rider')) : t('appName');
  const availability = signedIn ? profile.availability : null;
  const chip = $('availability-status');
  chip.textContent = availability === 'ONLINE' ? t('online') : availability === 'OFFLINE' ? t('offline')
    : availability === 'ON_TASK' ? t('onTask') : '';
  chip.className = `chip ${availability ? availability.toLowerCase() : ''}`;
  show(chip, Boolean(chip.textContent));
  const toggle = $('availability');
  const canToggle = signedIn && ['ONLINE', 'OFFLINE'].includes(availability) && screen !== 'task';
  show(toggle, canToggle);
  if (canToggle) {
    toggle.textContent = t(availability === 'ONLINE' ? 'goOffline' : 'goOnline');
    toggle.className = `toggle ${availability === 'ONLINE' ? 'on' : 'off'}`;
    toggle.disabled = state.availabilityBusy;
    toggle.setAttribute('aria-busy', state.availabilityBusy ? 'true' : 'false');
  }
}

function renderQueue() {
  const waiting = state.token ? queue.waiting : 0;
  const stuck = waiting > 0 && (queue.state === 'retrying' || offline());
  const banner = $('queue-banner');
  show(banner, stuck);
  if (stuck) {
    $('queue-text').textContent = state.waitingForLocation && !offline() ? t('waitingForLocation') : t('retrying');
    $('queue-count').textContent = t('waitingCount', { n: waiting });
  }
}

function envNotes() {
  const notes = [];
  if (['denied', 'insecure', 'unavailable'].includes(geo.status) && !geo.simulating) {
    notes.push(t(geo.status === 'denied' ? 'locationDenied' : geo.status === 'insecure' ? 'locationInsecure' : 'locationUnavailable'));
    if (config.demo === true) notes.push(t('locationDemoHint'));
  }
  if (state.noServiceWorker) notes.push(t('noOfflineStart'));
  if (!queue.durable) notes.push(t('noStorage'));
  return notes;
}

function fillNotes(list, notes) {
  list.replaceChildren(...notes.map((text) => Object.assign(document.createElement('li'), { textContent: text })));
  show(list, notes.length > 0);
}

function renderHome() {
  // A delivery just tapped Delivered (still on its way to the server) ends with the rider online again.
  const online = state.profile.availability === 'ONLINE' || state.profile.availability === 'ON_TASK';
  show($('waiting'), online);
  show($('offline-hint'), state.profile.availability === 'OFFLINE');
  fillNotes($('env-notes'), envNotes());
}

function renderOffer() {
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

function renderTask() {
  const task = displayTask();
  const navigation = state.navigation;
  const navigating = Boolean(navigation && navigation.visible);
  show($('nav'), navigating);
  show($('task-head'), !navigating);
  show($('task-details'), !navigating);
  $('task').classList.toggle('navigating', navigating);
  document.body.classList.toggle('navigating', navigating);

  $('task-title').textContent = task.externalRef ? t('taskTitleRef', { ref: task.externalRef }) : t('taskTitle');
  $('task-status').textContent = t(STEP_TEXT[task.status] || 'stepToStore');
  const beforePickup = ['ACCEPTED', 'ARRIVED_AT_STORE'].includes(task.status);
  $('store-card').classList.toggle('current', beforePickup);
  $('customer-card').classList.toggle('current', !beforePickup);
  $('store-name').textContent = task.vendor.name;
  $('store-address').textContent = task.vendor.address;
  $('customer-name').textContent = task.customer.name;
  $('customer-address').textContent = task.customer.address;
  const note = $('customer-note');
  note.textContent = task.notes ? t('note', { note: task.notes }) : '';
  show(note, Boolean(task.notes));
  const phone = task.customer.phone || task.customer.phoneMasked || '';
  $('customer-phone').textContent = phone ? t('phone', { phone }) : '';
  show($('call'), Boolean(phone));

  const resumable = Boolean(navigation && navigation.canResume(task));
  show($('navigate-vendor'), beforePickup && !resumable);
  show($('navigate-customer'), !beforePickup && !resumable);
  show($('resume-navigation'), resumable);

  fillNotes($('task-notes'), envNotes());

  renderProof(task);

  const reported = state.reported && state.reported.taskId === task.taskId;
  show($('mark-failed'), reported && ['PICKED_UP', 'ARRIVED_AT_DESTINATION'].includes(task.status));
  const failing = pendingFor(task.taskId).some((item) => item.kind === 'status' && item.status === 'FAILED');
  $('mark-failed').disabled = failing;

  const [status, key] = PRIMARY[task.status] || [null, null];
  const primary = $('primary');
  show(primary, Boolean(status));
  if (status) {
    primary.textContent = t(key);
    primary.dataset.status = status;
    const needsProof = status === 'DELIVERED' && !proofAccepted(task);
    primary.disabled = needsProof || failing;
    $('primary-hint').textContent = needsProof ? t('deliveredNeedsProof') : failing ? t('failingHint') : '';
  }
}

function proofAccepted(task) {
  const proof = task.proofOfDelivery || {};
  return Boolean(proof.accepted || proof.overridden);
}

function renderProof(task) {
  const section = $('proof');
  const atDoor = task.status === 'ARRIVED_AT_DESTINATION';
  show(section, atDoor);
  if (!atDoor) return;
  const proof = task.proofOfDelivery || {};
  const accepted = proofAccepted(task);
  const pending = pendingFor(task.taskId).filter((item) => item.kind === 'otp' || item.kind === 'photo');
  const photo = task.podType === 'PHOTO' || proof.otpLocked || proof.overridden;
  show($('proof-photo'), !accepted && photo);
  show($('proof-otp'), !accepted && task.podType === 'OTP' && !proof.otpLocked);
  const left = proof.otpAttemptsRemaining;
  $('otp-attempts').textContent = Number.isFinite(left) && left < 5 ? t('otpAttemptsLeft', { n: left }) : '';
  const progress = $('photo-progress');
  const uploading = queue.progress && pending.some((item) => item.seq === queue.progress.seq && item.kind === 'photo');
  show(progress, Boolean(uploading));
  if (uploading) progress.value = Math.round(queue.progress.fraction * 100);
  let status = '';
  if (accepted) status = proof.overridden && !proof.accepted ? t('proofWaived') : t('proofAccepted');
  else if (state.photoBusy) status = t('photoPreparing');
  else if (pending.length) status = offline() || queue.state === 'retrying' ? t('proofWaiting') : t('proofSending');
  $('proof-status').textContent = status;
  section.classList.toggle('done', accepted);
}

// --- Duty: what the GPS and the fix uploader do -------------------------------------------------------------

function updateDuty() {
  const signedIn = Boolean(state.token && state.profile);
  const onTask = signedIn && Boolean(displayTask());
  const online = signedIn && state.profile.availability === 'ONLINE';
  fixes.setDuty(onTask ? 'onTask' : online ? 'online' : 'offDuty');
  const navigating = Boolean(state.navigation && state.navigation.visible);
  if (onTask || online || navigating) geo.start();
  else geo.stop();
}

function fixArrived(fix) {
  fixes.record(fix);
  if (state.waitingForLocation) {
    state.waitingForLocation = false;
    queue.wake();
  }
  if (state.navigation && state.navigation.visible) state.navigation.onFix(fix);
}

// --- Signing in and out -----------------------------------------------------------------------------------------

function tokenFromAddress() {
  const fragment = new URLSearchParams(location.hash.slice(1)).get('token');
  if (location.hash) history.replaceState(null, '', location.pathname + location.search); // the token leaves the bar
  return fragment ? fragment.trim() : null;
}

function signOut(reason) {
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

function refusedToken(error) {
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

async function begin(token) {
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

// --- The server's view: profile, active task, offers ------------------------------------------------------------

// Returns true when the server answered, false when it could not be reached (the page goes on with what it has).
async function refresh({ boot = false } = {}) {
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
async function adoptServerTask(task, { boot = false } = {}) {
  const previous = state.task;
  if (previous && (!task || task.taskId !== previous.taskId)) {
    const ending = pendingFor(previous.taskId).some((item) => item.kind === 'status' && FINAL.includes(item.status));
    await queue.reconcile(task ? task.taskId : null);
    state.task = task;
    if (!ending) taskEnded(previous, 'cancelled');
  } else {
    if (boot || task) await queue.reconcile(task ? task.taskId : null);
    state.task = task;
  }
  if (state.navigation) state.navigation.taskChanged(displayTask());
}

function taskEnded(task, how) {
  if (state.navigation) state.navigation.end();
  if (state.reported && state.reported.taskId === task.taskId) state.reported = null;
  if (how === 'cancelled') notify(`${t('orderCancelled')}. ${t('cancelledStop')}`);
  else if (how === 'delivered') notify(t('deliveryComplete'), 'success');
  else if (how === 'failed') notify(t('deliveryFailed'), 'success');
}

async function fetchOffers() {
  if (!state.token || offline()) return;
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

function sweepOffers() {
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

// --- The rider stream: offers, cancellations and dispatcher decisions as they happen ---------------------------

function closeSocket() {
  clearTimeout(state.socketTimer);
  if (state.socket) {
    state.socket.onclose = null;
    state.socket.close(1000);
  }
  state.socket = null;
  state.socketOpen = false;
}

function connectSocket() {
  clearTimeout(state.socketTimer);
  if (!state.token || state.socket) return;
  if (offline()) return; // the 'online' event reconnects
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  let socket;
  try {
    socket = new WebSocket(`${scheme}//${location.host}/api/v1/rider/stream`, ['bearer', state.token]);
  } catch (error) {
    scheduleSocket();
    return;
  }
  state.socket = socket;
  state.socketProblem = null;
  socket.onopen = () => {
    state.socketOpen = true;
    state.socketRetryMs = 1000;
  };
  socket.onmessage = (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch (error) {
      return;
    }
    if (message.type === 'ready') {
      // Connected (again): whatever happened meanwhile.
      fetchOffers();
      refresh();
      queue.wake();
    } else if (message.type === 'notification') {
      soon();
    } else if (message.type === 'error' && message.problem) {
      state.socketProblem = message.problem;
    }
  };
  socket.onclose = (event) => {
    state.socket = null;
    state.socketOpen = false;
    const problem = state.socketProblem || {};
    if (event.code === 4401) refusedToken({ status: 401, detail: problem.detail || '', title: problem.title || '' });
    else if (event.code === 4403) refusedToken({ status: 403, detail: problem.detail || '', title: problem.title || '' });
    else scheduleSocket();
  };
}

function scheduleSocket() {
  if (!state.token) return;
  clearTimeout(state.socketTimer);
  const wait = state.socketRetryMs * (0.5 + Math.random() / 2);
  state.socketRetryMs = Math.min(30000, state.socketRetryMs * 2);
  state.socketTimer = setTimeout(connectSocket, wait);
}

let soonTimer = null;
function soon() {
  clearTimeout(soonTimer);
  soonTimer = setTimeout(() => {
    fetchOffers();
    refresh();
  }, 150);
}

// --- Offers: accept and decline ---------------------------------------------------------------------------------

async function accept() {
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
  } catch (error) {
    if (error.status === 401 || isSuspended(error)) {
      state.accepting = false;
      refusedToken(error);
      return;
    }
    if (error.code === 'RIDER_NOT_ONLINE') {
      // Kept on screen: the rider can go online and accept while it lasts.
      entry.message = t('notOnline');
      state.profile = { ...state.profile, availability: 'OFFLINE' };
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

async function decline() {
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

async function toggleAvailability() {
  if (state.availabilityBusy || !state.profile) return;
  const goOnline = state.profile.availability !== 'ONLINE';
  state.availabilityBusy = true;
  render();
  try {
    const profile = await api.put('/api/v1/rider/availability', { status: goOnline ? 'ONLINE' : 'OFFLINE' });
    state.profile = profile;
    notify('');
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

// --- Taps: stored at once, then sent in order -----------------------------------------------------------------

function locationProblem() {
  if (geo.recent() || geo.simulating) return null;
  if (['denied', 'insecure', 'unavailable'].includes(geo.status)) {
    return t(geo.status === 'denied' ? 'locationDenied' : geo.status === 'insecure' ? 'locationInsecure' : 'locationUnavailable');
  }
  return null;
}

// Every proof and status tap carries the rider's position: without one, say how to allow it and record nothing.
function locationReady() {
  const problem = locationProblem();
  notify(problem || '');
  return !problem;
}

async function record(kind, fields) {
  const task = displayTask();
  if (!task) return null;
  const action = {
    id: uuid(), riderId: state.riderId, taskId: task.taskId, kind, occurredAt: new Date().toISOString(),
    location: point(geo.recent()), ...fields,
  };
  try {
    await queue.record(action);
  } catch (error) {
    notify(t('couldNotSave'));
    return null;
  }
  fixes.keep(geo.recent());
  fixes.flush();
  queue.sync();
  return action;
}

async function tapStatus(status, extra = {}) {
  const task = displayTask();
  if (!task) return;
  if (!locationReady()) return;
  const action = await record('status', { status, confirmed: Boolean(extra.confirmed), reason: extra.reason || null, ...extra.at });
  if (!action) return;
  if (status === 'DELIVERED') taskEnded(task, 'delivered');
  if (state.navigation) state.navigation.taskChanged(displayTask());
  saveCache();
  render();
}

// RDR-018: further than the server's radius from the customer asks first; only Confirm records the tap.
async function arrive() {
  const task = displayTask();
  if (!task) return;
  if (!locationReady()) return;
  const tappedAt = new Date().toISOString();
  const fix = geo.recent();
  const radius = Number.isFinite(task.geofenceRadiusM) ? task.geofenceRadiusM : 500;
  let confirmed = false;
  if (fix && metres(fix, task.customer.location) > radius) {
    confirmed = await ask(t('farQuestion'), [['cancel', t('cancel')], ['confirm', t('confirm'), true]]) === 'confirm';
    if (!confirmed) return;
  }
  await tapStatus('ARRIVED_AT_DESTINATION', { confirmed, at: { occurredAt: tappedAt, location: point(fix) } });
}

function primaryTapped(event) {
  // A double tap on a phone is one tap: the button under the finger changes to the next step at once.
  if (event.detail > 1) return;
  const status = $('primary').dataset.status;
  if (status === 'ARRIVED_AT_DESTINATION') arrive();
  else if (status) tapStatus(status);
}

async function submitOtp(event) {
  event.preventDefault();
  const box = $('otp');
  const value = box.value.trim();
  if (!/^\d{4}$/.test(value)) {
    notify(t('otpFormat'));
    box.focus();
    return;
  }
  if (!locationReady()) return;
  box.value = '';
  await record('otp', { value });
  render();
}

async function photoChosen() {
  const input = $('photo');
  const file = input.files && input.files[0];
  input.value = '';
  if (!file) {
    notify(t('cameraHint'));
    return;
  }
  if (!locationReady()) return;
  const capturedAt = new Date().toISOString();
  const fix = point(geo.recent());
  state.photoBusy = true;
  render();
  try {
    const { shrinkPhoto } = await import('./rider-proof.js');
    const preview = $('photo-preview');
    const shrunk = await shrinkPhoto(file, preview);
    show(preview, shrunk.shrunk);
    await record('photo', { photo: shrunk.blob, occurredAt: capturedAt, location: fix });
  } catch (error) {
    notify(t('photoFailed'));
  } finally {
    state.photoBusy = false;
    render();
  }
}

async function reportProblem() {
  const task = displayTask();
  if (!task) return;
  const type = await ask(t('reportQuestion'), [
    ['CUSTOMER_UNAVAILABLE', t('customerUnavailable')], ['ADDRESS_NOT_FOUND', t('addressNotFound')], ['cancel', t('cancel')],
  ]);
  if (!type || type === 'cancel') return;
  const words = type === 'CUSTOMER_UNAVAILABLE' ? t('customerUnavailable') : t('addressNotFound');
  const sure = await ask(t('reportConfirm', { problem: words }), [['cancel', t('cancel')], ['send', t('send'), true]]);
  if (sure !== 'send') return;
  const action = await record('issue', { type });
  if (!action) return;
  state.reported = { taskId: task.taskId, type };
  saveCache();
  notify(t('issueReported'), 'success');
  render();
}

async function markFailed() {
  const task = displayTask();
  if (!task || !state.reported) return;
  const sure = await ask(t('failQuestion'), [['cancel', t('cancel')], ['fail', t('markFailed'), true]]);
  if (sure !== 'fail') return;
  await tapStatus('FAILED', { reason: state.reported.type });
}

// What the queue sends, by kind. Throws ApiError; the queue retries or stops as RiderKit's does.
async function send(action, onProgress) {
  let location = action.location;
  if (!location && (action.kind !== 'issue')) {
    location = point(geo.recent());
    if (!location) {
      // A tap before the first fix: it goes with the first fix that comes.
      state.waitingForLocation = true;
      const error = new Error('waiting for a location');
      error.network = true;
      throw error;
    }
  }
  state.waitingForLocation = false;
  const base = `/api/v1/rider/tasks/${encodeURIComponent(action.taskId)}`;
  const key = { 'Idempotency-Key': action.id };
  switch (action.kind) {
    case 'status': {
      const body = {
        status: action.status, location, occurredAt: action.occurredAt, eventId: action.id,
        farFromDestinationConfirmed: Boolean(action.confirmed),
      };
      if (action.reason) body.reason = action.reason;
      const task = await api.patch(`${base}/status`, body);
      serverTaskChanged(task);
      return;
    }
    case 'otp':
      await api.post(`${base}/pod`, { type: 'OTP', value: action.value, capturedAt: action.occurredAt, location }, { headers: key });
      proofAccepted_(action.taskId);
      return;
    case 'photo': {
      const { uploadPhoto } = await import('./rider-proof.js');
      await uploadPhoto({ taskId: action.taskId, token: state.token, action: { ...action, location }, onProgress });
      proofAccepted_(action.taskId);
      return;
    }
    case 'issue': {
      const body = { type: action.type, occurredAt: action.occurredAt };
      if (location) body.location = { lat: location.lat, lon: location.lon, accuracyM: location.accuracyM };
      await api.post(`${base}/issues`, body, { headers: key });
      return;
    }
    default:
      return;
  }
}

function proofAccepted_(taskId) {
  if (state.task && state.task.taskId === taskId) {
    state.task = { ...state.task, proofOfDelivery: { ...(state.task.proofOfDelivery || {}), accepted: true } };
    state.taskVersion++;
    saveCache();
  }
}

// The server's answer to a status change is the task as it now stands.
function serverTaskChanged(task) {
  state.taskVersion++;
  if (FINAL.includes(task.status)) {
    const previous = state.task;
    state.task = null;
    state.profile = { ...state.profile, availability: 'ONLINE', activeTaskId: null };
    if (previous && task.status === 'FAILED') taskEnded(previous, 'failed');
    if (state.navigation) state.navigation.end();
    saveCache();
    setTimeout(() => {
      refresh();
      fetchOffers();
    }, 0);
    return;
  }
  state.task = task;
  saveCache();
}

// A tap the server refused for good: said, dropped, and the page takes the server's view again.
async function refused(action, error) {
  const task = state.task;
  switch (error.code) {
    case 'ORDER_CANCELLED':
      await queue.dropTask(action.taskId);
      if (task && task.taskId === action.taskId) {
        state.task = null;
        state.taskVersion++;
        taskEnded(task, 'cancelled');
        saveCache();
        refresh();
      }
      return null;
    case 'GEOFENCE_CONFIRMATION_REQUIRED': {
      const answer = await ask(t('farQuestion'), [['cancel', t('cancel')], ['confirm', t('confirm'), true]]);
      if (answer === 'confirm') return { ...action, id: uuid(), confirmed: true };
      // Nothing that needed the arrival can go either.
      for (const item of pendingFor(action.taskId)) {
        if (item.kind === 'otp' || item.kind === 'photo' || (item.kind === 'status' && FINAL.includes(item.status))) await queue.remove(item);
      }
      render();
      return null;
    }
    case 'INVALID_OTP': {
      const left = error.problem.attemptsRemaining;
      notify(Number.isFinite(left) ? t('otpWrong', { n: left }) : t('otpWrongNoCount'));
      if (task && task.proofOfDelivery && Number.isFinite(left)) {
        state.task = { ...task, proofOfDelivery: { ...task.proofOfDelivery, otpAttemptsRemaining: left } };
        saveCache();
      }
      break;
    }
    case 'OTP_LOCKED':
      notify(t('otpLocked'));
      if (task && task.proofOfDelivery) state.task = { ...task, proofOfDelivery: { ...task.proofOfDelivery, otpLocked: true, otpAttemptsRemaining: 0 } };
      break;
    default:
      if (action.kind === 'status' && action.status === 'FAILED' && Number.isFinite(error.problem.waitSeconds)) {
        notify(t('failWait', { minutes: Math.max(1, Math.ceil(error.problem.waitSeconds / 60)) }));
      } else {
        notify(problemText(error));
      }
  }
  state.taskVersion++;
  render();
  refresh();
  return null;
}

// --- Dialogs ----------------------------------------------------------------------------------------------------

let dialogAnswer = null;
// Asks a question with buttons [[value, words, primary?]]; resolves with the chosen value (null when dismissed).
function ask(text, choices) {
  if (dialogAnswer) dialogAnswer(null);
  const overlay = $('dialog');
  $('dialog-text').textContent = text;
  const buttons = choices.map(([value, words, primary]) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = words;
    button.className = primary ? 'primary' : 'secondary';
    button.dataset.value = value;
    return button;
  });
  $('dialog-buttons').replaceChildren(...buttons);
  const opener = document.activeElement;
  show(overlay, true);
  buttons[0].focus();
  return new Promise((resolve) => {
    const finish = (value) => {
      dialogAnswer = null;
      show(overlay, false);
      overlay.onclick = null;
      overlay.onkeydown = null;
      if (opener && opener.focus) opener.focus({ preventScroll: true });
      resolve(value);
    };
    dialogAnswer = finish;
    overlay.onclick = (event) => {
      const button = event.target.closest('button');
      if (button && button.dataset.value) finish(button.dataset.value);
    };
    overlay.onkeydown = (event) => {
      if (event.key === 'Escape') finish(null);
    };
  });
}

// --- Navigation (loaded on first use) ---------------------------------------------------------------------------

function navigationView() {
  if (!state.navigationLoading) {
    state.navigationLoading = import('./rider-nav.js').then(({ NavigationView }) => {
      state.navigation = new NavigationView({
        api, geo, config, frameTimes: app.frameTimes, onChange: () => render(),
      });
      return state.navigation;
    });
    state.navigationLoading.catch(() => {
      state.navigationLoading = null;
    });
  }
  return state.navigationLoading;
}

async function navigate() {
  const task = displayTask();
  if (!task) return;
  if (!geo.simulating && ['denied', 'insecure', 'unavailable'].includes(geo.status) && config.demo !== true) {
    notify(t(geo.status === 'denied' ? 'locationDenied' : geo.status === 'insecure' ? 'locationInsecure' : 'locationUnavailable'));
    return;
  }
  try {
    const view = await navigationView();
    await view.start(displayTask() || task);
  } catch (error) {
    notify(offline() ? t('navOffline') : t('somethingWrong'));
  }
  render();
}

async function resumeNavigation() {
  if (!state.navigation) return;
  await state.navigation.resume();
  render();
}

function call() {
  const task = displayTask();
  if (!task) return;
  const number = task.customer.phone || task.customer.phoneMasked || '';
  if (number && !/[*•x]/i.test(number)) {
    window.location.href = `tel:${number.replace(/[^\d+]/g, '')}`;
  } else {
    notify(t('phoneHidden', { phone: number }));
  }
}

// --- The app shell works offline ------------------------------------------------------------------------------

function registerServiceWorker() {
  if (!('serviceWorker' in navigator) || window.isSecureContext === false) {
    state.noServiceWorker = true;
    return;
  }
  app.serviceWorkerReady = navigator.serviceWorker.register('/rider-sw.js', { scope: '/rider' })
    .then(() => navigator.serviceWorker.ready)
    .then(() => true)
    .catch(() => {
      state.noServiceWorker = true;
      render();
      return false;
    });
}

// --- Wiring -------------------------------------------------------------------------------------------------------

function wire() {
  $('sign-in').addEventListener('submit', (event) => {
    event.preventDefault();
    const token = $('token').value.trim();
    $('token').value = '';
    if (!token) {
      $('sign-in-error').textContent = t('pasteToken');
      return;
    }
    $('sign-in-error').textContent = '';
    begin(token);
  });
  $('availability').addEventListener('click', toggleAvailability);
  $('sign-out').addEventListener('click', () => signOut(''));
  $('accept').addEventListener('click', accept);
  $('decline').addEventListener('click', decline);
  $('primary').addEventListener('click', primaryTapped);
  $('navigate-vendor').addEventListener('click', navigate);
  $('navigate-customer').addEventListener('click', navigate);
  $('resume-navigation').addEventListener('click', resumeNavigation);
  $('report').addEventListener('click', reportProblem);
  $('mark-failed').addEventListener('click', markFailed);
  $('call').addEventListener('click', call);
  $('proof-otp').addEventListener('submit', submitOtp);
  $('photo').addEventListener('change', photoChosen);
  $('photo').addEventListener('cancel', () => notify(t('cameraHint')));
  $('notice-close').addEventListener('click', () => notify(''));

  window.addEventListener('online', () => {
    state.socketRetryMs = 1000;
    connectSocket();
    queue.wake();
    refresh();
    fetchOffers();
    fixes.flush();
    render();
  });
  window.addEventListener('offline', () => render());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && state.token) {
      fetchOffers();
      refresh();
      queue.wake();
    } else {
      fixes.flush();
    }
  });
  window.addEventListener('hashchange', () => {
    const token = tokenFromAddress();
    if (token) begin(token);
  });
  // Nothing unexpected reaches the rider as a stack trace or a blank screen.
  window.addEventListener('error', (event) => {
    event.preventDefault();
    notify(t('somethingWrong'));
  });
  window.addEventListener('unhandledrejection', (event) => {
    event.preventDefault();
    notify(t('somethingWrong'));
  });
  setInterval(sweepOffers, 250);
  // Without the stream (a proxy that drops sockets), offers and cancellations still arrive, a little later.
  setInterval(() => {
    if (state.token && !state.socketOpen && !offline()) {
      fetchOffers();
      refresh();
    }
  }, 15000);
}

async function main() {
  state.starting = true;
  translate();
  wire();
  registerServiceWorker();
  const token = tokenFromAddress() || sessionStorage.getItem('riderToken');
  await queue.open();
  state.starting = false;
  if (token) await begin(token);
  else render();
}

main().catch(() => {
  state.starting = false;
  show($('loading'), false);
  show($('sign-in'), true);
  $('sign-in-error').textContent = t('somethingWrong');
});
