// @ts-check
// The rider API over fetch: JSON in and out, the token as a Bearer header, and every failure as an ApiError —
// the server's problem document (RFC 9457: status, code, title, detail and helpful extras), or `network` when no
// answer came (no connection, a timeout), which is worth retrying.

export class ApiError extends Error {
  constructor(status, problem = {}, network = false) {
    super(problem.title || (network ? 'No connection' : `HTTP ${status}`));
    this.status = status;
    this.problem = problem;
    this.code = problem.code || (network ? 'NETWORK' : `HTTP_${status}`);
    this.title = problem.title || '';
    this.detail = problem.detail || '';
    this.network = network;
  }

  // A refusal that sending again will not change (RiderKit's RiderAPIError.isPermanent): the offline queue stops
  // at it and shows it. Throttling, server trouble, an expired token and lost connections are retried instead.
  get permanent() {
    return !this.network && this.status >= 400 && this.status < 500 && ![401, 408, 429].includes(this.status)
      && this.code !== 'IDEMPOTENCY_REQUEST_IN_PROGRESS';
  }

  // Seconds the server asked to wait (Retry-After), if it did.
  get retryAfterS() {
    return this.problem.retryAfterS || null;
  }
}

export const offline = () => navigator.onLine === false;

// Reads a failed answer's problem document (or makes one from the status).
export function problemOf(status, text, retryAfter) {
  let problem = {};
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === 'object') problem = parsed;
  } catch (error) {
    // Not JSON (a proxy's error page): the status alone.
  }
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds) && seconds > 0) problem.retryAfterS = seconds;
  return problem;
}

export function createApi(token) {
  /**
   * @param {string} method
   * @param {string} path
   * @param {{json?: unknown, body?: BodyInit, headers?: Record<string, string>, timeoutMs?: number}} options
   */
  async function request(method, path, { json, body, headers = {}, timeoutMs = 15000 } = {}) {
    // A phone that knows it has no network is not asked to try (and the console stays quiet).
    if (offline()) throw new ApiError(0, {}, true);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const allHeaders = { Accept: 'application/json, application/problem+json', Authorization: `Bearer ${token()}`, ...headers };
    if (json !== undefined) allHeaders['Content-Type'] = 'application/json';
    let response;
    let text;
    try {
      response = await fetch(path, {
        method, headers: allHeaders, body: json !== undefined ? JSON.stringify(json) : body, signal: controller.signal,
        cache: 'no-store', credentials: 'omit',
      });
      text = await response.text();
    } catch (error) {
      throw new ApiError(0, {}, true);
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) throw new ApiError(response.status, problemOf(response.status, text, response.headers.get('Retry-After')));
    if (!text) return {};
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ApiError(0, {}, true); // cut short: as good as no answer
    }
  }
  return {
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, json, options) => request('POST', path, { ...options, json }),
    put: (path, json, options) => request('PUT', path, { ...options, json }),
    patch: (path, json, options) => request('PATCH', path, { ...options, json }),
  };
}

// A v4 UUID from crypto.getRandomValues (crypto.randomUUID exists only on secure origins, not on a LAN's http).
export function uuid() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
