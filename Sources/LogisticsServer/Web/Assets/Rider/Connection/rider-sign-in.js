// Signing in with a phone number and the code the company's SMS brings, and staying signed in: the access token
// lives in sessionStorage (gone with the tab), the refresh token in localStorage (kept across reloads and app
// restarts, never in a URL), and a new pair is asked for before the access token runs out or when the server
// says it has.
import { problemOf } from './rider-api.js';
import { t } from './rider-i18n.js';
import { $ } from './rider-state.js';

const REFRESH_KEY = 'riderRefreshToken';
const RESEND_AFTER_S = 30;
let phone = null;
let resendTimer = null;
let resendAt = 0;
let refreshing = null;

export const storedRefreshToken = () => localStorage.getItem(REFRESH_KEY);
export const forgetRefreshToken = () => localStorage.removeItem(REFRESH_KEY);

async function post(path, json, token) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, application/problem+json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  let text;
  try {
    response = await fetch(path, { method: 'POST', headers, body: JSON.stringify(json), cache: 'no-store', credentials: 'omit' });
    text = await response.text();
  } catch (error) {
    return { network: true };
  }
  let body = {};
  try { body = text ? JSON.parse(text) : {}; } catch (error) { body = {}; }
  return response.ok ? { ok: true, body } : { status: response.status, problem: problemOf(response.status, text, response.headers.get('Retry-After')) };
}

// What a person types becomes E.164: spaces, dashes, dots and brackets go, a leading 00 becomes +.
export function normalisedPhone(text) {
  let digits = (text || '').replace(/[\s\-().]/g, '');
  if (digits.startsWith('00')) digits = `+${digits.slice(2)}`;
  return /^\+[1-9][0-9]{6,14}$/.test(digits) ? digits : null;
}

function masked(number) {
  return number.length > 4 ? `${number.slice(0, 3)}…${number.slice(-2)}` : number;
}

function showStep(step) {
  $('sign-in-phone').hidden = step !== 'phone';
  $('sign-in-code').hidden = step !== 'code';
}

function error(text) {
  $('sign-in-error').textContent = text || '';
}

function minutesFrom(seconds) {
  return Math.max(1, Math.ceil(seconds / 60));
}

function refusal(result) {
  if (result.network) return t('signInOffline');
  const { code, attemptsRemaining, retryAfterS } = result.problem || {};
  if (code === 'INVALID_CODE') return attemptsRemaining > 0 ? t('codeWrong', { n: attemptsRemaining }) : t('codeExpired');
  if (code === 'CODE_LOCKED') return t('codeLocked');
  if (code === 'RATE_LIMITED') return t('codeTooMany', { n: minutesFrom(retryAfterS || 60) });
  if (code === 'FORBIDDEN') return t('suspended');
  if (code === 'NOT_FOUND') return t('signInOff');
  if (code === 'VALIDATION_FAILED') return t('phoneInvalid');
  return t('somethingWrong');
}

function tickResend() {
  const left = Math.ceil((resendAt - Date.now()) / 1000);
  const button = $('resend-code');
  button.disabled = left > 0;
  button.textContent = left > 0 ? t('resendIn', { n: left }) : t('resendCode');
  if (left <= 0) {
    clearInterval(resendTimer);
    resendTimer = null;
  }
}

function startResendWait() {
  resendAt = Date.now() + RESEND_AFTER_S * 1000;
  clearInterval(resendTimer);
  resendTimer = setInterval(tickResend, 1000);
  tickResend();
}

async function sendCode() {
  const button = $('send-code');
  button.disabled = true;
  const result = await post('/api/v1/auth/code', { phone });
  button.disabled = false;
  if (!result.ok) {
    error(refusal(result));
    return false;
  }
  error('');
  $('code-sent').textContent = t('codeSent', { phone: masked(phone) });
  showStep('code');
  startResendWait();
  $('code').value = '';
  $('code').focus();
  listenForCode();
  return true;
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

// Wires the two steps; `signedIn(accessToken)` starts the app with the new token.
export function wireSignIn(signedIn) {
  $('sign-in-phone').addEventListener('submit', async (event) => {
    event.preventDefault();
    const number = normalisedPhone($('phone').value);
    if (!number) {
      error(t('phoneInvalid'));
      return;
    }
    phone = number;
    await sendCode();
  });
  $('resend-code').addEventListener('click', () => {
    if (phone && Date.now() >= resendAt) sendCode();
  });
  $('other-number').addEventListener('click', () => {
    clearInterval(resendTimer);
    error('');
    showStep('phone');
    $('phone').focus();
  });
  // A pasted SMS or a code typed with spaces: the six digits are what count, and six digits sign in at once.
  $('code').addEventListener('input', () => {
    const digits = $('code').value.replace(/\D/g, '').slice(0, 6);
    if (digits !== $('code').value) $('code').value = digits;
    if (digits.length === 6) $('sign-in-code').requestSubmit();
  });
  $('sign-in-code').addEventListener('submit', async (event) => {
    event.preventDefault();
    const code = $('code').value.replace(/\D/g, '');
    if (code.length !== 6) {
      error(t('codeSixDigits'));
      return;
    }
    const button = $('submit-code');
    if (button.disabled) return;
    button.disabled = true;
    const result = await post('/api/v1/auth/token', { phone, code });
    button.disabled = false;
    // A refused code leaves the field empty: the next digits typed are a new try, not the old code again.
    $('code').value = '';
    if (!result.ok) {
      error(refusal(result));
      $('code').focus();
      return;
    }
    if (result.body.role !== 'rider') {
      // The sign-in happened on the server: end it, since this app will not use it.
      post('/api/v1/auth/logout', {}, result.body.accessToken);
      error(t('notRider'));
      return;
    }
    clearInterval(resendTimer);
    error('');
    localStorage.setItem(REFRESH_KEY, result.body.refreshToken);
    showStep('phone');
    $('phone').value = '';
    $('code').value = '';
    signedIn(result.body.accessToken);
  });
}

export function resetSignIn() {
  clearInterval(resendTimer);
  showStep('phone');
}

// A new access token for the stored refresh token, or null (none stored, refused: then it is forgotten). Callers
// at once share one request: a spent refresh token presented twice would end the sign-in.
export function refreshAccess() {
  if (refreshing) return refreshing;
  const token = storedRefreshToken();
  if (!token) return Promise.resolve(null);
  refreshing = (async () => {
    const result = await post('/api/v1/auth/refresh', { refreshToken: token });
    if (result.ok) {
      localStorage.setItem(REFRESH_KEY, result.body.refreshToken);
      return result.body.accessToken;
    }
    if (result.network) return { network: true };
    forgetRefreshToken();
    return null;
  })().finally(() => { refreshing = null; });
  return refreshing;
}

// Tells the server the sign-in is over (best effort: offline, the tokens simply run out).
export function logout(accessToken) {
  // Only a sign-in by phone has a session to end (a development link's token has none).
  const signedInByPhone = Boolean(storedRefreshToken());
  forgetRefreshToken();
  if (accessToken && signedInByPhone) post('/api/v1/auth/logout', {}, accessToken);
}
