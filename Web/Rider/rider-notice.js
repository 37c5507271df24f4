// @ts-check
// What the rider is told: the notice under the bar, the server's refusals in the requirement's words, and questions
// with buttons.
import { t } from './rider-i18n.js';
import { $, show } from './Connection/rider-state.js';

// The requirement's words for the server's refusals (the server's own title where there is none).
const REFUSALS = {
  OFFER_EXPIRED: 'offerExpired', ORDER_ALREADY_ASSIGNED: 'orderAssigned', ORDER_CANCELLED: 'orderCancelled',
  RIDER_NOT_ONLINE: 'notOnline', RIDER_HAS_ACTIVE_TASK: 'hasTask', NAVIGATION_UNAVAILABLE: 'navUnavailable',
  OTP_LOCKED: 'otpLocked', POD_REQUIRED: 'podRequired', INVALID_STATUS_TRANSITION: 'notPossibleNow',
  RATE_LIMITED: 'rateLimited',
};

export function isSuspended(error) {
  return error.status === 403 && /suspend/i.test(`${error.detail} ${error.title}`);
}

export function problemText(error) {
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

export function notify(text, kind = 'alert') {
  $('notice-text').textContent = text;
  $('notice').className = `notice ${kind}`;
  show($('notice'), Boolean(text));
}

let dialogAnswer = null;
// Asks a question with buttons [[value, words, primary?]]; resolves with the chosen value (null when dismissed).
export function ask(text, choices) {
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
  const opener = /** @type {HTMLElement | null} */ (document.activeElement);
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
      const button = /** @type {HTMLElement} */ (event.target).closest('button');
      if (button && button.dataset.value) finish(button.dataset.value);
    };
    overlay.onkeydown = (event) => {
      if (event.key === 'Escape') finish(null);
    };
  });
}
