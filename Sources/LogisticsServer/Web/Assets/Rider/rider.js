// @ts-check
// The rider's app (GET /rider): sign-in, going online, offers, the task with its status buttons, navigation, proof
// of delivery, and taps that survive a lost connection. Everything goes through the rider API with the rider's token
// (signed in by phone and code, or from a development link's #token=…; kept in sessionStorage, with the refresh
// token in localStorage so a reload or an app restart stays signed in). Navigation and the photo code load on
// first use.
// This module starts the app and wires the page's controls; each screen's work is in its own module.
import { offline } from './Connection/rider-api.js';
import { t, translate } from './rider-i18n.js';
import { $, show, state, app, queue, fixes } from './Connection/rider-state.js';
import { notify } from './rider-notice.js';
import { render, dismissFinished } from './rider-screens.js';
import { tokenFromAddress, signOut, begin, refresh, toggleAvailability } from './Connection/rider-session.js';
import { wireSignIn, refreshAccess, storedRefreshToken } from './Connection/rider-sign-in.js';
import { claims } from '../sign-in.js';

// An access token whose time is up (with a minute to spare): not worth a request that will be refused.
function expired(token) {
  const c = claims(token);
  return Boolean(c && c.exp && c.exp * 1000 < Date.now() + 60000);
}
import { connectSocket } from './Connection/rider-stream.js';
import { fetchOffers, sweepOffers, accept, decline } from './Delivery/rider-offers.js';
import {
  primaryTapped, navigate, resumeNavigation, reportProblem, markFailed, call,
} from './Delivery/rider-task.js';
import { submitOtp, photoChosen } from './Delivery/rider-proof-screen.js';

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
  wireSignIn(begin);
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
  $('done-continue').addEventListener('click', dismissFinished);
  $('proof-otp').addEventListener('submit', submitOtp);
  $('photo').addEventListener('change', photoChosen);
  $('photo').addEventListener('cancel', () => notify(t('cameraHint')));
  $('notice-close').addEventListener('click', () => notify(''));

  window.addEventListener('online', () => {
    // Started offline with only a refresh token: sign in now that the server can be asked.
    if (!state.token && state.renewWhenOnline && storedRefreshToken()) {
      state.renewWhenOnline = false;
      refreshAccess().then((renewed) => { if (typeof renewed === 'string') begin(renewed); });
    }
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
  let token = tokenFromAddress() || sessionStorage.getItem('riderToken');
  await queue.open();
  // A reload or a new start of the app (or a tab the phone brought back after the access token ran out): the
  // refresh token signs the rider in again without a code.
  if ((!token || expired(token)) && storedRefreshToken()) {
    const renewed = await refreshAccess();
    if (typeof renewed === 'string') token = renewed;
    else if (renewed && renewed.network) state.renewWhenOnline = true;
  }
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
