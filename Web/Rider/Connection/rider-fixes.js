// @ts-check
// Which GPS fixes leave the phone and when — RiderKit's LocationUploader policy: often while the rider moves on a
// task, in batches (POST /api/v1/rider/locations), nothing off duty. Standing still, online or on a task, a fix goes
// at least every `positionEveryS` (the server's heartbeat, 30 s; it calls a rider stale only past three of them):
// the uploader asks the GPS for a reading when the phone has said nothing for a while, so an idle rider never looks
// lost. A failed upload keeps its fixes (the newest 500) for the next batch.

const POLICY = {
  movingIntervalS: 5, movingSpeedMps: 1.5, movingDistanceM: 25, movingBatchAgeS: 10, maximumBatch: 50, kept: 500,
};
// Asked for well before the heartbeat is due, so the fix has time to come (a GPS takes a few seconds) and go.
const HEARTBEAT_MARGIN_S = 10;

function metres(a, b) {
  const rad = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2
    + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lon - a.lon) * rad) / 2) ** 2;
  return 2 * 6371008.8 * Math.atan2(Math.sqrt(h), Math.sqrt(1 - h));
}

export class FixUploader {
  /**
   * @param {any} api
   * @param {{positionEveryS?: number, askForFix?: () => void}} [options] askForFix: a fresh GPS reading, please.
   */
  constructor(api, options = {}) {
    this.api = api;
    this.stationaryIntervalS = Math.max(5, (options.positionEveryS ?? 30) - HEARTBEAT_MARGIN_S);
    this.askForFix = options.askForFix || (() => {});
    this.askedAt = 0;
    this.duty = 'offDuty'; // offDuty | online | onTask
    this.batch = [];
    this.lastKept = null;
    this.moving = false;
    this.sending = false;
    this.timer = setInterval(() => this.flushIfDue(), 2000);
  }

  setDuty(duty) {
    this.duty = duty;
    if (duty === 'offDuty') this.batch = [];
  }

  record(fix) {
    if (this.duty === 'offDuty') return false;
    const last = this.lastKept;
    if (last) {
      const moved = metres(last, fix);
      this.moving = (fix.speedMps || 0) >= POLICY.movingSpeedMps || moved >= POLICY.movingDistanceM;
      const interval = this.duty === 'onTask' && this.moving ? POLICY.movingIntervalS : this.stationaryIntervalS;
      if (fix.recordedAt - last.recordedAt < interval * 1000) return false;
    }
    this.lastKept = fix;
    this.batch.push(fix);
    if (this.batch.length > POLICY.kept) this.batch.splice(0, this.batch.length - POLICY.kept);
    return true;
  }

  // A tap is a moment worth knowing: its fix goes with the next batch whatever the interval (then flush()).
  keep(fix) {
    if (this.duty === 'offDuty' || !fix || (this.lastKept && fix.recordedAt <= this.lastKept.recordedAt)) return;
    this.lastKept = fix;
    this.batch.push(fix);
    if (this.batch.length > POLICY.kept) this.batch.splice(0, this.batch.length - POLICY.kept);
  }

  // Every 2 s: a batch moving on a task goes when 10 s old; standing still each kept fix goes at once (one a
  // heartbeat). A rider on duty the phone has not heard from for a heartbeat gets a reading asked for.
  flushIfDue(now = Date.now()) {
    const silent = !this.lastKept || now - this.lastKept.recordedAt >= this.stationaryIntervalS * 1000;
    // A GPS that does not answer is asked again every 10 s, not every tick.
    if (this.duty !== 'offDuty' && silent && now - this.askedAt >= 10000) {
      this.askedAt = now;
      this.askForFix();
    }
    const oldest = this.batch[0];
    if (!oldest) return;
    const age = this.duty === 'onTask' && this.moving ? POLICY.movingBatchAgeS : 0;
    if (now - oldest.recordedAt >= age * 1000 || this.batch.length >= POLICY.maximumBatch) this.flush();
  }

  // Sends what waits now (after a status tap, or when the page goes to the background).
  async flush() {
    if (this.sending || !this.batch.length || navigator.onLine === false) return false;
    this.sending = true;
    const sending = this.batch.slice(0, 500);
    try {
      await this.api.post('/api/v1/rider/locations', {
        fixes: sending.map((fix) => {
          const out = { lat: fix.lat, lon: fix.lon, accuracyM: fix.accuracyM, recordedAt: new Date(fix.recordedAt).toISOString() };
          // Only values the server takes: one bad field would refuse the whole batch.
          if (Number.isFinite(fix.speedMps) && fix.speedMps >= 0 && fix.speedMps <= 100) out.speedMps = fix.speedMps;
          if (Number.isFinite(fix.headingDeg)) out.headingDeg = ((fix.headingDeg % 360) + 360) % 360;
          return out;
        }),
      });
      this.batch.splice(0, sending.length);
      return true;
    } catch (error) {
      // A batch the server refuses would be refused again: dropped rather than blocking every later fix.
      if (error.permanent) this.batch.splice(0, sending.length);
      return false;
    } finally {
      this.sending = false;
    }
  }
}
