// @ts-check
// The API with the dispatcher's token. The token comes from signing in by phone (sign-in.js) or a
// development link's fragment (#token=…, which browsers never send to a server) and is kept in sessionStorage only:
// closing the tab or signing out forgets it (a refresh token, kept apart, signs in again).
import { keptAccessToken } from '../Shared/sign-in.js';

const KEY = 'dispatchToken';
export const REFRESH_KEY = 'dispatchRefreshToken';
/** @type {(refusal: Refusal) => Promise<boolean>} */
let unauthorised = async () => false;

export function token() {
  return keptAccessToken(KEY, REFRESH_KEY);
}

/** @param {string} value */
export function keepToken(value) { sessionStorage.setItem(KEY, value); }
export function forgetToken() { sessionStorage.removeItem(KEY); }

// Called with the problem when the server says the token no longer works (expired, revoked); it answers whether a
// new token was had, and the request is then sent once more with it, so what the person did is not lost.
/** @param {(refusal: Refusal) => Promise<boolean>} handler */
export function onUnauthorised(handler) { unauthorised = handler; }

/**
 * A problem document as the API sends it, with the fields the page reads.
 * @typedef {{title?: string, code?: string, detail?: string, errors?: {field: string, message: string}[]}} Problem
 */

// A refusal as a person reads it: the problem's title, and the fields it names.
export class Refusal extends Error {
  /**
   * @param {Problem} problem
   * @param {number} status
   */
  constructor(problem, status) {
    const fields = (problem.errors || []).map((error) => `${FIELD_WORDS[error.field] || error.field} ${error.message}`);
    super([problem.title || `The server answered ${status}`, ...fields].join(' · '));
    this.status = status;
    this.code = problem.code;
  }
}

/** @type {Record<string, string>} */
const FIELD_WORDS = {
  'customer.phone': 'Customer phone', 'customer.name': 'Customer name', 'customer.address': 'Customer address',
  'vendor.name': 'Store name', 'vendor.address': 'Store address', externalRef: 'Reference', notes: 'Notes',
  preparationMinutes: 'Preparation time', reason: 'Reason', q: 'Search words',
};

/**
 * The answer's JSON ({} for 204), or a Refusal; a 401 is sent once more after the token was renewed. The answer is
 * typed any: each caller reads the fields of the answer it asked for.
 * @param {string} method
 * @param {string} path
 * @param {object} [body]
 * @param {Record<string, string>} [headers]
 * @param {boolean} [renewed]
 * @returns {Promise<any>}
 */
export async function api(method, path, body, headers = {}, renewed = false) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: { Authorization: `Bearer ${token()}`, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new Error('No connection to the server');
  }
  const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
  if (!response.ok) {
    const refusal = new Refusal(data, response.status);
    // A 401 is answered before the request does anything, so sending it again with a renewed token is safe.
    if (response.status === 401 && !renewed && (await unauthorised(refusal))) {
      return api(method, path, body, headers, true);
    }
    throw refusal;
  }
  return data;
}

// A proof photo needs the token, so an <img src> cannot fetch it: it is read here and shown from memory.
/** @param {string} podId */
export async function photoURL(podId) {
  const response = await fetch(`/api/v1/pods/${podId}/image`, { headers: { Authorization: `Bearer ${token()}` } });
  if (!response.ok) throw new Error(`The photo could not be loaded (${response.status})`);
  return URL.createObjectURL(await response.blob());
}

// crypto.randomUUID exists only on https and localhost; a dispatcher on plain http in the office still needs ids.
export function newId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
