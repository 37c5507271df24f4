// @ts-check
// The rider app's sign-in: the shared phone-and-code sign-in (sign-in.js) with the rider's words, in their language.
// The refresh token keeps the rider signed in across reloads and app restarts.
import { createSignIn } from '../../Shared/sign-in.js';
import { t } from '../rider-i18n.js';

// How to write a phone: with the example of the city the server serves (the field's placeholder, from
// LOGISTICS_PHONE_EXAMPLE), or without one rather than another country's.
function phoneHint() {
  const field = /** @type {HTMLInputElement | null} */ (document.getElementById('phone'));
  const example = (field && field.placeholder) || '';
  // Non-breaking spaces: a number is read whole, not split across two lines of a narrow phone.
  return example ? t('phoneInvalid', { example: example.replace(/ /g, '\u00a0') }) : t('phoneInvalidNoExample');
}

function minutesFrom(seconds) {
  return Math.max(1, Math.ceil(seconds / 60));
}

function refusal(result) {
  if (result.network) return t('signInOffline');
  const { code, attemptsRemaining } = result.problem || {};
  if (code === 'INVALID_CODE') return attemptsRemaining > 0 ? t('codeWrong', { n: attemptsRemaining }) : t('codeExpired');
  if (code === 'CODE_LOCKED') return t('codeLocked');
  if (code === 'RATE_LIMITED') return t('codeTooMany', { n: minutesFrom(result.retryAfter || 60) });
  if (code === 'FORBIDDEN') return t('suspended');
  if (code === 'NOT_FOUND') return t('signInOff');
  if (code === 'VALIDATION_FAILED') return phoneHint();
  return t('somethingWrong');
}

const signIn = createSignIn({
  refreshKey: 'riderRefreshToken',
  roles: ['rider'],
  wrongRole: t('notRider'),
  words: {
    get invalidPhone() { return phoneHint(); },
    codeSent: (masked) => t('codeSent', { phone: masked }),
    resendIn: (seconds) => t('resendIn', { n: seconds }),
    resend: t('resendCode'),
    refusal,
    mask: (phone) => (phone.length > 4 ? `${phone.slice(0, 3)}…${phone.slice(-2)}` : phone),
  },
});

export const { wireSignIn, resetSignIn, refreshAccess, logout, forgetRefreshToken, claimRenewal } = signIn;
export const storedRefreshToken = () => signIn.hasRefreshToken();
