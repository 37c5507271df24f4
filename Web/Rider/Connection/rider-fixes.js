// @ts-check
// Which GPS fixes leave the phone and when — RiderKit's LocationUploader policy: often while the rider moves on a
// task, rarely while standing still or only online, in batches (POST /api/v1/rider/locations), nothing off duty.
// A failed upload keeps its fixes (the newest 500) for the next batch.

const POLICY = {
  movingIntervalS: 5, stationaryIntervalS: 30, movingSpeedMps: 1.5, movingDistanceM: 25,
  movingBatchAgeS: 10, stationaryBatchAgeS: 60, maximumBatch: 50, kept: 500,
};

function metres(a, b) {
  const rad = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2
    + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lon - a.lon) * rad) / 2) ** 2;
  return 2 * 6371008.8 * Math.atan2(Math.sqrt(h), Math.sqrt(1 - h));
}

export class FixUploader {
  constructor(api) {
    this.api = api;
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
      const interval = this.duty === 'onTask' && this.moving ? POLICY.movingIntervalS : POLICY.stationaryIntervalS;
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

  flushIfDue(now = Date.now()) {
    const oldest = this.batch[0];
    if (!oldest) return;
    const age = this.duty === 'onTask' && this.moving ? POLICY.movingBatchAgeS : POLICY.stationaryBatchAgeS;
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
