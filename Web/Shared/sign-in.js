// @ts-check
// Signing in with a phone number and the code sent by SMS, for the rider app, the dispatcher's and the store's
// pages: the access token in sessionStorage (gone with the tab), the refresh token in localStorage (a reload or a new
// window stays signed in; never in a URL). A new pair is asked for when the server refuses an expired access token.
// The page brings the two forms (#sign-in-phone, #sign-in-code), says which roles it is for, and may bring its own
// words (the rider app's are in the rider's language).
// The page's element of that id, typed any: callers use it as the input, form or dialog they know it is.
/** @type {(id: string) => any} */
const $ = (id) => document.getElementById(id);

/**
 * A problem document as the API sends it, with the fields the sign-in reads.
 * @typedef {{code?: string, title?: string, detail?: string, attemptsRemaining?: number}} Problem
 */
/**
 * How a POST ended: the answer's body, the refusal (status, problem, Retry-After), or no connection.
 * @typedef {{ok?: boolean, body?: any, status?: number, problem?: Problem, retryAfter?: number, network?: boolean}}
 *   PostResult
 */
/**
 * The words the sign-in says; a page may give its own for any of them.
 * @typedef {{invalidPhone: string, codeSent: (masked: string) => string, resendIn: (seconds: number) => string,
 *   resend: string, refusal: (result: any) => string, mask: (phone: string) => string}} SignInWords
 */

// How to write a phone: with the example of the city the server serves (the phone field's placeholder, from
// LOGISTICS_PHONE_EXAMPLE; the demo's is Monaco's), or without one rather than another country's.
function phoneHint() {
  const example = ($('phone') && $('phone').placeholder) || '';
  return `Enter the phone number with its country code${example ? `, like ${example}` : ' (a + and then the digits)'}.`;
}

// The English words; a page may give its own for any of them.
/** @type {SignInWords} */
const ENGLISH = {
  get invalidPhone() { return phoneHint(); },
  codeSent: (masked) => `We sent a 6-digit code to ${masked}. It works for 5 minutes.`,
  resendIn: (seconds) => `Resend code in ${seconds} s`,
  resend: 'Resend code',
  refusal: (result) => {
    if (result.network) return 'No connection to the server. Try again.';
    const problem = result.problem || {};
    switch (problem.code) {
      case 'INVALID_CODE':
        return problem.attemptsRemaining > 0
          ? `That code is not correct. ${problem.attemptsRemaining} tries left.`
          : 'This code has expired or was already used. Send a new code.';
      case 'CODE_LOCKED': return 'Too many wrong codes. Send a new code.';
      case 'RATE_LIMITED': return `Too many codes were sent to this phone. Try again in ${Math.max(1, Math.ceil((result.retryAfter || 60) / 60))} min.`;
      case 'FORBIDDEN': return problem.detail || 'This account is suspended.';
      case 'NOT_FOUND': return 'Signing in by phone is turned off on this server: use a sign-in link.';
      case 'VALIDATION_FAILED': return phoneHint();
      default: return problem.title || 'Something went wrong. Try again.';
    }
  },
  // The phone as the code step shows it: enough to recognise, not the whole number.
  mask: (phone) => `${phone.slice(0, 4)}…${phone.slice(-2)}`,
};

/**
 * The sign-in of one page: `refreshKey` names its refresh token in localStorage, `roles` who may use the page.
 * @param {{refreshKey: string, roles: string[], wrongRole: string, words?: Partial<SignInWords>}} settings
 */
export function createSignIn({ refreshKey, roles, wrongRole, words: own = {} }) {
  /** @type {SignInWords} */
  const words = { ...ENGLISH, ...own };
  const REFRESH_KEY = refreshKey;
  /** @type {string | null} */
  let phone = null;
  let resendAt = 0;
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let resendTimer;
  /** @type {Promise<string | {network: true} | null> | null} */
  let refreshing = null;
  let refusedBecause = '';

  /**
   * @param {string} path
   * @param {object} json
   * @param {string} [token]
   * @returns {Promise<PostResult>}
   */
  async function post(path, json, token) {
    /** @type {Record<string, string>} */
    const headers = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    try {
      const response = await fetch(path, { method: 'POST', headers, body: JSON.stringify(json), cache: 'no-store' });
      const body = await response.json().catch(() => ({}));
      return response.ok ? { ok: true, body } : { status: response.status, problem: body, retryAfter: Number(response.headers.get('Retry-After')) };
    } catch {
      return { network: true };
    }
  }

  /** @param {'phone' | 'code'} which */
  function step(which) {
    $('sign-in-phone').hidden = which !== 'phone';
    $('sign-in-code').hidden = which !== 'code';
  }

  /** @param {string} text */
  function say(text, isError = true) {
    $('sign-in-error').textContent = text || '';
    $('sign-in-error').className = isError ? 'error' : 'hint';
  }

  function tick() {
    const left = Math.ceil((resendAt - Date.now()) / 1000);
    $('resend-code').disabled = left > 0;
    $('resend-code').textContent = left > 0 ? words.resendIn(left) : words.resend;
    if (left <= 0) clearInterval(resendTimer);
  }

  async function sendCode() {
    $('send-code').disabled = true;
    const result = await post('/api/v1/auth/code', { phone });
    $('send-code').disabled = false;
    if (!result.ok) {
      say(words.refusal(result));
      return;
    }
    say('');
    $('code-sent').textContent = words.codeSent(words.mask(phone || ''));
    step('code');
    resendAt = Date.now() + 30_000;
    clearInterval(resendTimer);
    resendTimer = setInterval(tick, 1000);
    tick();
    $('code').value = '';
    $('code').focus();
    listenForCode();
  }

  // Chrome on Android can hand the page the code of an SMS that ends with "@host #123456" (WebOTP).
  function listenForCode() {
    if (!('OTPCredential' in window) || !navigator.credentials) return;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5 * 60 * 1000);
    navigator.credentials.get({ otp: { transport: ['sms'] }, signal: controller.signal })
      .then((credential) => {
        if (credential && credential.code && !$('sign-in-code').hidden) {
          $('code').value = credential.code;
          $('sign-in-code').requestSubmit();
        }
      })
      .catch(() => {});
  }

  // `signedIn(accessToken)` opens the page with the new token.
  /** @param {(accessToken: string) => void} signedIn */
  function wireSignIn(signedIn) {
    $('sign-in-phone').addEventListener('submit', (/** @type {Event} */ event) => {
      event.preventDefault();
      phone = normalisedPhone($('phone').value);
      if (!phone) {
        say(words.invalidPhone);
        return;
      }
      sendCode();
    });
    $('resend-code').addEventListener('click', () => { if (phone && Date.now() >= resendAt) sendCode(); });
    $('other-number').addEventListener('click', () => {
      clearInterval(resendTimer);
      say('');
      step('phone');
    });
    $('code').addEventListener('input', () => {
      const digits = $('code').value.replace(/\D/g, '').slice(0, 6);
      if (digits !== $('code').value) $('code').value = digits;
      if (digits.length === 6) $('sign-in-code').requestSubmit();
    });
    $('sign-in-code').addEventListener('submit', async (/** @type {Event} */ event) => {
      event.preventDefault();
      const code = $('code').value.replace(/\D/g, '');
      if (code.length !== 6 || $('submit-code').disabled) return;
      $('submit-code').disabled = true;
      const result = await post('/api/v1/auth/token', { phone, code });
      $('submit-code').disabled = false;
      // A refused code leaves the field empty: the next digits typed are a new try, not the old code again.
      $('code').value = '';
      if (!result.ok) {
        say(words.refusal(result));
        $('code').focus();
        return;
      }
      if (!roles.includes(result.body.role)) {
        // The sign-in happened on the server: end it, since this page will not use it.
        post('/api/v1/auth/logout', {}, result.body.accessToken);
        say(wrongRole);
        return;
      }
      clearInterval(resendTimer);
      localStorage.setItem(REFRESH_KEY, result.body.refreshToken);
      step('phone');
      $('phone').value = '';
      say('');
      signedIn(result.body.accessToken);
    });
  }

  function resetSignIn() {
    clearInterval(resendTimer);
    step('phone');
  }

  const hasRefreshToken = () => Boolean(localStorage.getItem(REFRESH_KEY));

  // A new access token for the stored refresh token; null when there is none or it was refused (then it is
  // forgotten); `{network: true}` when the server could not be reached (it is kept). One request at a time: a
  // refresh token presented twice ends the sign-in.
  function refreshAccess() {
    if (refreshing) return refreshing;
    const token = localStorage.getItem(REFRESH_KEY);
    if (!token) return Promise.resolve(null);
    refreshing = post('/api/v1/auth/refresh', { refreshToken: token }).then((result) => {
      if (result.ok) {
        localStorage.setItem(REFRESH_KEY, result.body.refreshToken);
        return result.body.accessToken;
      }
      if (result.network) return { network: true };
      localStorage.removeItem(REFRESH_KEY);
      refusedBecause = (result.problem && (result.problem.detail || result.problem.title)) || '';
      return null;
    }).finally(() => { refreshing = null; });
    return refreshing;
  }

  // Ends the sign-in on the server too (best effort) and forgets the refresh token.
  /** @param {string | null} accessToken */
  function logout(accessToken) {
    // Only a sign-in by phone has a session to end (a development link's token has none).
    const signedInByPhone = hasRefreshToken();
    localStorage.removeItem(REFRESH_KEY);
    if (accessToken && signedInByPhone) post('/api/v1/auth/logout', {}, accessToken);
  }

  const forgetRefreshToken = () => localStorage.removeItem(REFRESH_KEY);

  // After the server refused an access token: true when a renewal may be tried now (a refresh token is kept and
  // none was tried in the last 10 s), and that try is counted. A token refused again right after its renewal is
  // then not renewed in a loop.
  let lastRenewal = 0;
  function claimRenewal() {
    if (!hasRefreshToken() || Date.now() - lastRenewal <= 10_000) return false;
    lastRenewal = Date.now();
    return true;
  }

  // The server's words for the last refused renewal (ended everywhere, suspended, expired), for the sign-in screen.
  const refusalReason = () => refusedBecause;

  return {
    wireSignIn, resetSignIn, refreshAccess, hasRefreshToken, forgetRefreshToken, claimRenewal, logout, refusalReason,
  };
}

// A JWT's claims, read without checking them (the server does): who signed in, in which role, until when.
/** @param {string | null} jwt @returns {any} */
export function claims(jwt) {
  if (!jwt) return null;
  try {
    const part = jwt.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(part.padEnd(part.length + ((4 - (part.length % 4)) % 4), '=')), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

// The access token a page keeps under `accessKey` in sessionStorage, taking a development link's (#token=…) first:
// it leaves the address bar, and an earlier phone sign-in's refresh token (`refreshKey`) must not take it over.
/** @param {string} accessKey @param {string} refreshKey */
export function keptAccessToken(accessKey, refreshKey) {
  const fragment = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fragment) {
    localStorage.removeItem(refreshKey);
    sessionStorage.setItem(accessKey, fragment);
    history.replaceState(null, '', location.pathname);
  }
  return sessionStorage.getItem(accessKey);
}

/** @param {string | null | undefined} text */
export function normalisedPhone(text) {
  let digits = (text || '').replace(/[\s\-().]/g, '');
  if (digits.startsWith('00')) digits = `+${digits.slice(2)}`;
  return /^\+[1-9][0-9]{6,14}$/.test(digits) ? digits : null;
}
