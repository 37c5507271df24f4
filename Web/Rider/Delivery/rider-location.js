// @ts-check
// Whether a tap can carry the rider's position, and the words for why not. The task and the proof screens both ask;
// it sits here so neither imports the other.
import { t } from '../rider-i18n.js';
import { notify } from '../rider-notice.js';

/**
 * Why the phone gives no position (refused, not over HTTPS, unavailable), or null when it has one or may get one.
 * @param {import('../Connection/rider-state.js').Rider['geo']} geo
 */
export function locationProblem(geo) {
  if (geo.recent() || geo.simulating) return null;
  if (['denied', 'insecure', 'unavailable'].includes(geo.status)) {
    return t(geo.status === 'denied' ? 'locationDenied' : geo.status === 'insecure' ? 'locationInsecure' : 'locationUnavailable');
  }
  return null;
}

// Every proof tap carries the rider's position: without one, say how to allow it and record nothing.
/** @param {import('../Connection/rider-state.js').Rider['geo']} geo */
export function locationReady(geo) {
  const problem = locationProblem(geo);
  notify(problem || '');
  return !problem;
}
