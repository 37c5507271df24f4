// @ts-check
// The rider's offline queue, with RiderKit's ActionQueue rules: every tap is written to IndexedDB before it is
// attempted (with its own id, the tap's time and the GPS fix of that moment), sent strictly in the order tapped,
// retried with backoff while the network is away ("No connection, retrying..."), and stopped at a refusal the server
// would repeat, which the app shows and then drops. Photos wait here too, as Blobs.

const DB = 'rider-app';
const STORE = 'taps';
// RiderKit's RetryPolicy(base: 1, cap: 30): full jitter up to base·2^(attempt-1), never more than the cap.
const BASE_MS = 1000;
const CAP_MS = 30000;

function promised(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function openDatabase() {
  return new Promise((resolve, reject) => {
    if (!('indexedDB' in window) || !window.indexedDB) {
      reject(new Error('no IndexedDB'));
      return;
    }
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'seq', autoIncrement: true });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error('IndexedDB blocked'));
  });
}

export class TapQueue {
  // send(action, onProgress) → Promise (throws ApiError); onChange(queue) after every change of items or state.
  constructor({ send, onChange, onBlocked, onUnauthorized }) {
    this.send = send;
    this.onChange = onChange;
    this.onBlocked = onBlocked;
    this.onUnauthorized = onUnauthorized;
    this.items = [];
    this.db = null;
    this.durable = false;
    this.state = 'idle'; // idle | sending | retrying | paused (signed out)
    this.attempt = 0;
    this.riderId = null;
    this.syncing = false;
    this.wakeUp = null;
    this.progress = null;
  }

  async open() {
    try {
      this.db = await openDatabase();
      const tx = this.db.transaction(STORE, 'readonly');
      const all = await promised(tx.objectStore(STORE).getAll());
      this.items = all.sort((a, b) => a.seq - b.seq);
      this.durable = true;
    } catch (error) {
      // Private windows of some browsers: taps are kept in memory only (the page says so).
      this.db = null;
      this.durable = false;
    }
    this.changed();
    return this;
  }

  changed() {
    if (this.onChange) this.onChange(this);
  }

  // Only the signed-in rider's taps are sent with their token.
  forRider(riderId) {
    this.riderId = riderId;
    return this;
  }

  mine() {
    return this.items.filter((item) => item.riderId === this.riderId);
  }

  get waiting() {
    return this.mine().length;
  }

  async count() {
    if (!this.db) return this.items.length;
    try {
      return await promised(this.db.transaction(STORE, 'readonly').objectStore(STORE).count());
    } catch (error) {
      return this.items.length;
    }
  }

  // Stored before anything is sent: a tap survives the page closing straight after.
  async record(action) {
    if (this.db) {
      const tx = this.db.transaction(STORE, 'readwrite');
      action.seq = await promised(tx.objectStore(STORE).add(action));
    } else {
      action.seq = (this.items.length ? this.items[this.items.length - 1].seq : 0) + 1;
    }
    this.items.push(action);
    this.changed();
    return action;
  }

  // Stores an action under a given place in the order.
  async put(action) {
    if (this.db) {
      const tx = this.db.transaction(STORE, 'readwrite');
      await promised(tx.objectStore(STORE).put(action));
    }
    this.items.push(action);
    this.items.sort((a, b) => a.seq - b.seq);
    this.changed();
  }

  async remove(action) {
    this.items = this.items.filter((item) => item.seq !== action.seq);
    if (this.db) {
      try {
        const tx = this.db.transaction(STORE, 'readwrite');
        await promised(tx.objectStore(STORE).delete(action.seq));
      } catch (error) {
        // Still sent once: a resend is harmless (its event id or Idempotency-Key makes it a replay).
      }
    }
    this.changed();
  }

  // On launch, with the server's answer in hand: taps for a task that is no longer one of the rider's (the active
  // one and, with batching, the rest of its trip) are dropped (applied before the page was closed, or the order
  // was cancelled meanwhile).
  async reconcile(liveTaskIds) {
    const stale = this.mine().filter((item) => !liveTaskIds.includes(item.taskId));
    for (const item of stale) await this.remove(item);
    return stale;
  }

  async dropTask(taskId) {
    for (const item of this.mine().filter((entry) => entry.taskId === taskId)) await this.remove(item);
  }

  // Try now rather than at the end of the current wait (the network came back, the rider signed in again).
  wake() {
    if (this.state === 'paused') this.state = 'idle';
    if (this.wakeUp) this.wakeUp();
    else this.sync();
  }

  pause() {
    this.state = 'paused';
    this.changed();
  }

  sleep(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const online = () => done();
      function done() {
        clearTimeout(timer);
        window.removeEventListener('online', online);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        done();
      };
      window.addEventListener('online', online);
    });
  }

  setState(state) {
    if (state === this.state) return;
    this.state = state;
    this.changed();
  }

  // Sends the rider's taps in order until none is left, one is refused for good (shown, dropped, and the rest
  // carry on), or the token is refused (paused until the rider signs in again). One sender at a time.
  async sync() {
    if (this.syncing || this.state === 'paused' || !this.riderId) return;
    this.syncing = true;
    try {
      for (;;) {
        const next = this.mine()[0];
        if (!next) break;
        if (this.state !== 'retrying') this.setState('sending');
        try {
          await this.send(next, (fraction) => {
            this.progress = { seq: next.seq, fraction };
            this.changed();
          });
          this.progress = null;
          this.attempt = 0;
          await this.remove(next);
          this.setState('sending');
        } catch (error) {
          this.progress = null;
          if (error && error.status === 401) {
            this.setState('paused');
            if (this.onUnauthorized) this.onUnauthorized(error);
            return;
          }
          if (error && error.permanent) {
            await this.remove(next);
            this.attempt = 0;
            // The app shows the refusal; it may answer with a corrected tap (the arrival confirmed after the
            // server's geofence question), which takes the refused one's place at the head of the queue.
            const replacement = this.onBlocked ? await this.onBlocked(next, error) : null;
            if (replacement) await this.put({ ...replacement, seq: next.seq });
            continue;
          }
          this.attempt++;
          this.setState('retrying');
          const ceiling = Math.min(CAP_MS, BASE_MS * 2 ** Math.min(this.attempt - 1, 30));
          let wait = Math.max(50, Math.random() * ceiling);
          if (error && error.retryAfterS) wait = Math.max(wait, error.retryAfterS * 1000);
          await this.sleep(wait);
          if (this.state === 'paused') return;
        }
      }
      this.attempt = 0;
      this.setState('idle');
    } finally {
      this.syncing = false;
      this.wakeUp = null;
    }
  }
}
