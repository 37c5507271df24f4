// @ts-check
// Where the rider is: navigator.geolocation.watchPosition, or — in the demo only — "Simulate my drive", which moves
// the position along the navigation route. Fixes are {lat, lon, accuracyM, headingDeg, speedMps, recordedAt (ms)}.

const SIMULATED_SPEED_MPS = 12;
const SIMULATED_TICK_MS = 1000;
// How long a heartbeat waits for a fresh reading before it takes the watch's silence to mean "not moved".
const STILL_HERE_AFTER_MS = 4000;

function toRad(degrees) {
  return (degrees * Math.PI) / 180;
}

function metres(a, b) {
  const dLat = toRad(b.lat - a.lat);
  const dLon = toRad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRad(a.lat)) * Math.cos(toRad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371008.8 * Math.atan2(Math.sqrt(h), Math.sqrt(1 - h));
}

function bearing(a, b) {
  const y = Math.sin(toRad(b.lon - a.lon)) * Math.cos(toRad(b.lat));
  const x = Math.cos(toRad(a.lat)) * Math.sin(toRad(b.lat))
    - Math.sin(toRad(a.lat)) * Math.cos(toRad(b.lat)) * Math.cos(toRad(b.lon - a.lon));
  return ((Math.atan2(y, x) * 180) / Math.PI + 360) % 360;
}

export class Geo {
  constructor({ onFix, onStatus }) {
    this.onFix = onFix;
    this.onStatus = onStatus;
    this.last = null;
    this.watch = null;
    this.wanted = false;
    // off | waiting | ok | denied | insecure | unavailable
    this.status = 'off';
    this.simulating = false;
    this.simulation = null;
  }

  get available() {
    return 'geolocation' in navigator;
  }

  setStatus(status) {
    if (status === this.status) return;
    this.status = status;
    if (this.onStatus) this.onStatus(status);
  }

  start() {
    this.wanted = true;
    if (this.simulating || this.watch !== null) return;
    if (!this.available) {
      this.setStatus('unavailable');
      return;
    }
    if (this.status !== 'ok') this.setStatus('waiting');
    try {
      this.watch = navigator.geolocation.watchPosition(
        (position) => this.real(position),
        (error) => this.failed(error),
        { enableHighAccuracy: true, maximumAge: 5000 });
    } catch (error) {
      this.setStatus('unavailable');
    }
  }

  stop() {
    this.wanted = false;
    if (this.watch !== null) navigator.geolocation.clearWatch(this.watch);
    this.watch = null;
    if (!this.simulating) this.setStatus('off');
  }

  failed(error) {
    if (error.code === 1) {
      // Browsers refuse location to pages on plain http (other than localhost) as if the person had said no.
      this.setStatus(window.isSecureContext === false ? 'insecure' : 'denied');
      if (this.watch !== null) navigator.geolocation.clearWatch(this.watch);
      this.watch = null;
    } else {
      // No signal for now: the watch carries on; navigation shows "Searching for GPS signal" by itself.
      if (this.status !== 'ok') this.setStatus('waiting');
    }
  }

  real(position) {
    if (this.simulating) return;
    const c = position.coords;
    const fix = {
      lat: c.latitude, lon: c.longitude, accuracyM: Number.isFinite(c.accuracy) ? c.accuracy : 10,
      headingDeg: Number.isFinite(c.heading) ? c.heading : null, speedMps: Number.isFinite(c.speed) ? c.speed : null,
      recordedAt: Date.now(),
    };
    // Without a heading from the device, the way from the last fix (when it moved enough to tell).
    if (fix.headingDeg === null && this.last && metres(this.last, fix) >= 5) fix.headingDeg = bearing(this.last, fix);
    else if (fix.headingDeg === null && this.last) fix.headingDeg = this.last.headingDeg;
    this.emit(fix);
  }

  emit(fix) {
    this.last = fix;
    this.setStatus('ok');
    if (this.onFix) this.onFix(fix);
  }

  // A fresh reading now, for a rider standing still: a phone's watch says nothing while nothing moves, and the
  // server must still hear from an online rider (rider-fixes.js asks). A device that gives no new reading within
  // a few seconds while its watch runs fine has nothing new to say: the rider is where the last fix was, now.
  refresh() {
    if (this.simulating) {
      if (this.last) this.emit({ ...this.last, speedMps: 0, recordedAt: Date.now() });
      return;
    }
    if (this.watch === null || !this.available) return;
    const asked = Date.now();
    let answered = false;
    const stillHere = () => {
      if (answered || this.watch === null || this.status !== 'ok' || !this.last || this.last.recordedAt > asked) return;
      answered = true;
      this.emit({ ...this.last, speedMps: 0, recordedAt: Date.now() });
    };
    setTimeout(stillHere, STILL_HERE_AFTER_MS);
    try {
      navigator.geolocation.getCurrentPosition((position) => {
        if (answered) return;
        answered = true;
        this.real(position);
      }, (error) => {
        if (error.code === 1) this.failed(error);
        else stillHere();
      }, { enableHighAccuracy: true, maximumAge: 0, timeout: STILL_HERE_AFTER_MS });
    } catch (error) {
      // No reading to be had now: the watch's last fix stands, and the next heartbeat asks again.
    }
  }

  // A fix of the last few minutes, for a tap's place (the server needs one on every status change).
  recent(maxAgeMs = 10 * 60 * 1000) {
    return this.last && Date.now() - this.last.recordedAt <= maxAgeMs ? this.last : null;
  }

  // Demo: positions from the route instead of the GPS.
  simulate(on) {
    if (on === this.simulating) return;
    this.simulating = on;
    if (on) {
      if (this.watch !== null) navigator.geolocation.clearWatch(this.watch);
      this.watch = null;
      this.last = null; // the drive starts where the route does, not where the device is
      this.simulation = { points: null, index: 0, offsetM: 0, timer: setInterval(() => this.tick(), SIMULATED_TICK_MS) };
    } else {
      if (this.simulation) clearInterval(this.simulation.timer);
      this.simulation = null;
      this.last = null;
      if (this.wanted) this.start();
      else this.setStatus('off');
    }
  }

  // The route to drive along from its start ([{lat, lon}]); null to stand still.
  simulateAlong(points) {
    if (!this.simulation) return;
    this.simulation.points = points && points.length > 1 ? points : null;
    this.simulation.index = 0;
    this.simulation.offsetM = 0;
    if (this.simulation.points) this.emit(this.simulatedFix(this.simulation.points[0], bearing(points[0], points[1]), 0));
  }

  simulatedFix(point, headingDeg, speedMps) {
    return { lat: point.lat, lon: point.lon, accuracyM: 5, headingDeg, speedMps, recordedAt: Date.now() };
  }

  tick() {
    const sim = this.simulation;
    if (!sim) return;
    if (!sim.points) {
      // Standing still: the same place again, so nothing thinks the signal was lost.
      if (this.last) this.emit({ ...this.last, speedMps: 0, recordedAt: Date.now() });
      return;
    }
    let left = SIMULATED_SPEED_MPS * (SIMULATED_TICK_MS / 1000);
    const points = sim.points;
    while (left > 0 && sim.index < points.length - 1) {
      const length = metres(points[sim.index], points[sim.index + 1]);
      if (sim.offsetM + left < length) {
        sim.offsetM += left;
        left = 0;
      } else {
        left -= length - sim.offsetM;
        sim.index++;
        sim.offsetM = 0;
      }
    }
    if (sim.index >= points.length - 1) {
      const end = points[points.length - 1];
      this.emit(this.simulatedFix(end, this.last ? this.last.headingDeg : 0, 0));
      sim.points = null;
      return;
    }
    const a = points[sim.index];
    const b = points[sim.index + 1];
    const length = metres(a, b) || 1;
    const f = sim.offsetM / length;
    this.emit(this.simulatedFix({ lat: a.lat + (b.lat - a.lat) * f, lon: a.lon + (b.lon - a.lon) * f }, bearing(a, b), SIMULATED_SPEED_MPS));
  }
}
