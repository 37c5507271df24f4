// @ts-check
// The rider's app (GET /rider): sign-in, going online, offers, the task with its status buttons, navigation, proof
// of delivery, and taps that survive a lost connection. Everything goes through the rider API with the rider's token
// (signed in by phone and code, or from a development link's #token=…; kept in sessionStorage, with the refresh
// token in localStorage so a reload or an app restart stays signed in). Navigation and the photo code load on
// first use.
// This module makes the app's store and services, gives them to the modules, and wires the page's controls; each
// screen's work is in its own module.
import { createApi, offline } from './Connection/rider-api.js';
import { TapQueue } from './Connection/rider-queue.js';
import { Geo } from './Connection/rider-geo.js';
import { FixUploader } from './Connection/rider-fixes.js';
import { t, translate, config } from './rider-i18n.js';
import { createStore } from './rider-store.js';
import { $, show, initialState, keepCache } from './Connection/rider-state.js';
import { notify } from './rider-notice.js';
import { initScreens, render, dismissFinished, fixArrived } from './rider-screens.js';
import {
  initSession, tokenFromAddress, signOut, begin, refresh, refusedToken, toggleAvailability,
} from './Connection/rider-session.js';
import { wireSignIn, refreshAccess, storedRefreshToken } from './Connection/rider-sign-in.js';
import { claims } from '../Shared/sign-in.js';

// An access token whose time is up (with a minute to spare): not worth a request that will be refused.
function expired(token) {
  const c = claims(token);
  return Boolean(c && c.exp && c.exp * 1000 < Date.now() + 60000);
}
import { initStream, reconnectSoon, socketOpen } from './Connection/rider-stream.js';
import { initOffers, fetchOffers, sweepOffers, renderOffer } from './Delivery/rider-offers.js';
import {
  initTask, primaryTapped, navigate, resumeNavigation, markFailed, call, renderTask,
} from './Delivery/rider-task.js';
import { initTaskEnd } from './Delivery/rider-task-end.js';
import { initReport, openReport } from './Delivery/rider-report.js';
import { initProofScreen, submitOtp, photoChosen } from './Delivery/rider-proof-screen.js';
import { initTaps, send, refused } from './rider-taps.js';

// --- The store and the services, made once and given to every module that uses them ---------------------------

const store = createStore(initialState());
keepCache(store);
const api = createApi(() => store.get().token);
const geo = new Geo({ onFix: fixArrived, onStatus: () => render() });
const fixes = new FixUploader(api, { positionEveryS: config.positionEveryS, askForFix: () => geo.refresh() });
const queue = new TapQueue({
  send, onChange: () => render(), onBlocked: refused, onUnauthorized: (error) => refusedToken(error),
});
/** @type {import('./Connection/rider-state.js').Rider} */
const rider = { store, api, geo, fixes, queue };
initScreens(rider, { offer: renderOffer, task: renderTask });
for (const init of [initSession, initStream, initOffers, initTask, initTaskEnd, initProofScreen, initTaps, initReport]) {
  init(rider);
}

// Read by the browser tests (Tests/Browser/rider_app), which cannot reach a module's own names.
const app = {
  queueLength: () => queue.count(),
  get reroutes() {
    const { navigation } = store.get();
    return navigation ? navigation.reroutes : 0;
  },
  get screen() { return store.get().screen; },
  serviceWorkerReady: Promise.resolve(false),
};
window.riderApp = app;

// --- The app shell works offline ------------------------------------------------------------------------------

function registerServiceWorker() {
  if (!('serviceWorker' in navigator) || window.isSecureContext === false) {
    store.update({ noServiceWorker: true });
    return;
  }
  app.serviceWorkerReady = navigator.serviceWorker.register('/rider-sw.js', { scope: '/rider' })
    .then(() => navigator.serviceWorker.ready)
    .then(() => true)
    .catch(() => {
      store.update({ noServiceWorker: true });
      render();
      return false;
    });
}

// --- Wiring -------------------------------------------------------------------------------------------------------

function wire() {
  wireSignIn(begin);
  $('availability').addEventListener('click', toggleAvailability);
  $('sign-out').addEventListener('click', () => signOut(''));
  $('primary').addEventListener('click', primaryTapped);
  $('navigate-vendor').addEventListener('click', navigate);
  $('navigate-customer').addEventListener('click', navigate);
  $('resume-navigation').addEventListener('click', resumeNavigation);
  $('report').addEventListener('click', openReport);
  $('mark-failed').addEventListener('click', markFailed);
  $('call').addEventListener('click', call);
  $('done-continue').addEventListener('click', dismissFinished);
  $('proof-otp').addEventListener('submit', submitOtp);
  $('photo').addEventListener('change', photoChosen);
  $('photo').addEventListener('cancel', () => notify(t('cameraHint')));
  $('notice-close').addEventListener('click', () => notify(''));

  window.addEventListener('online', () => {
    // Started offline with only a refresh token: sign in now that the server can be asked.
    const { token, renewWhenOnline } = store.get();
    if (!token && renewWhenOnline && storedRefreshToken()) {
      store.update({ renewWhenOnline: false });
      refreshAccess().then((renewed) => { if (typeof renewed === 'string') begin(renewed); });
    }
    reconnectSoon();
    queue.wake();
    refresh();
    fetchOffers();
    fixes.flush();
    render();
  });
  window.addEventListener('offline', () => render());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && store.get().token) {
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
    if (store.get().token && !socketOpen() && !offline()) {
      fetchOffers();
      refresh();
    }
  }, 15000);
}

async function main() {
  store.update({ starting: true });
  translate();
  wire();
  registerServiceWorker();
  let token = tokenFromAddress() || sessionStorage.getItem('riderToken');
  await queue.open();
  // A reload or a new start of the app (or a tab the phone brought back after the access token ran out): the
  // refresh token signs the rider in again without a code.
  if ((!token || expired(token)) && storedRefreshToken()) {
    const renewed = await refreshAccess();
    if (typeof renewed === 'string') token = renewed;
    else if (renewed && renewed.network) store.update({ renewWhenOnline: true });
  }
  store.update({ starting: false });
  if (token) await begin(token);
  else render();
}

main().catch(() => {
  store.update({ starting: false });
  show($('loading'), false);
  show($('sign-in'), true);
  $('sign-in-error').textContent = t('somethingWrong');
});
