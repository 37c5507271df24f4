// @ts-check
// Turn-by-turn guidance along a route from the server, with the same rules as RiderKit's NavigationSession:
// fixes are matched onto the route, each voice instruction is spoken once at its place, a real deviation (a few good
// fixes in a row off the route) asks for a new route, and "Searching for GPS signal" follows a silence.
// No DOM here: rider-nav.js shows what this decides.

import { decodePolyline } from '../../Shared/map.js';

export { decodePolyline };

const EARTH_RADIUS_M = 6371008.8;
// An announcement whose spot is farther behind than this is skipped rather than spoken late.
const STALE_ANNOUNCEMENT_M = 60;
// No rider on a city delivery goes faster than this, which bounds how far ahead a fix may match.
const FASTEST_MPS = 40;
// The route starts where the rider was when it was asked for: the first fix is matched near its start. Matched
// anywhere, a route that loops back past its start (one-way streets round a block) put the rider at its end.
const FIRST_MATCH_M = 300;

export function distanceM(a, b) {
  const p1 = (a.lat * Math.PI) / 180;
  const p2 = (b.lat * Math.PI) / 180;
  const dp = ((b.lat - a.lat) * Math.PI) / 180;
  const dl = ((b.lon - a.lon) * Math.PI) / 180;
  const h = Math.sin(dp / 2) ** 2 + Math.cos(p1) * Math.cos(p2) * Math.sin(dl / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.atan2(Math.sqrt(h), Math.sqrt(1 - h));
}

export function bearingDeg(a, b) {
  const p1 = (a.lat * Math.PI) / 180;
  const p2 = (b.lat * Math.PI) / 180;
  const dl = ((b.lon - a.lon) * Math.PI) / 180;
  const y = Math.sin(dl) * Math.cos(p2);
  const x = Math.cos(p1) * Math.sin(p2) - Math.sin(p1) * Math.cos(p2) * Math.cos(dl);
  return ((Math.atan2(y, x) * 180) / Math.PI + 360) % 360;
}


// A route's geometry with the distance from its start to each point.
export class RouteLine {
  constructor(points) {
    this.points = points;
    this.along = [0];
    for (let i = 1; i < points.length; i++) this.along.push(this.along[i - 1] + distanceM(points[i - 1], points[i]));
  }

  get length() {
    return this.along[this.along.length - 1] || 0;
  }

  // The nearest point of the route between fromM and toM metres from its start.
  match(position, fromM = 0, toM = Infinity) {
    const { points, along } = this;
    if (points.length < 2) return null;
    let first = 0;
    while (first < points.length - 2 && along[first + 1] < fromM) first++;
    let last = first;
    while (last < points.length - 2 && along[last + 1] <= toM) last++;
    const perLat = 111320;
    const perLon = 111320 * Math.cos((position.lat * Math.PI) / 180);
    let best = null;
    for (let i = first; i <= last; i++) {
      const a = points[i];
      const b = points[i + 1];
      const ax = (a.lon - position.lon) * perLon;
      const ay = (a.lat - position.lat) * perLat;
      const dx = (b.lon - position.lon) * perLon - ax;
      const dy = (b.lat - position.lat) * perLat - ay;
      const lengthSquared = dx * dx + dy * dy;
      const t = lengthSquared === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / lengthSquared));
      const px = ax + t * dx;
      const py = ay + t * dy;
      const offset = Math.sqrt(px * px + py * py);
      if (best === null || offset < best.offsetM) {
        best = {
          segment: i,
          point: { lat: a.lat + (b.lat - a.lat) * t, lon: a.lon + (b.lon - a.lon) * t },
          alongM: along[i] + (along[i + 1] - along[i]) * t,
          offsetM: offset,
        };
      }
    }
    return best;
  }
}

export function steps(route) {
  return (route.legs || []).flatMap((leg) => leg.steps || []);
}

// Events, as RiderKit's NavigationEvent: progress, announce, offRoute, rerouted, rerouteFailed, searching, restored,
// arrived.
export class Guidance {
  // rules: {offRouteM, offRouteFixes, gpsLostAfterS}; reroute(from, headingDeg) → Promise<route>.
  constructor(route, destination, rules, reroute, now = Date.now()) {
    this.destination = destination;
    this.reroute = reroute;
    this.offRouteM = rules.offRouteM ?? 40;
    this.offRouteFixes = rules.offRouteFixes ?? 3;
    this.gpsLostAfterMs = (rules.gpsLostAfterS ?? 10) * 1000;
    this.goodAccuracyM = 30;
    this.arrivalRadiusM = 30;
    this.reroutes = 0;
    this.offRouteCount = 0;
    // The silence is counted from the start too: a phone that never gets a fix says so.
    this.lastFixAt = now;
    this.searching = false;
    this.exited = false;
    this.arrived = false;
    this.busy = null;
    this.adopt(route);
  }

  adopt(route) {
    this.route = route;
    this.line = new RouteLine(decodePolyline(route.geometry || ''));
    this.steps = steps(route);
    this.announcements = this.announcementsOf();
    this.nextAnnouncement = 0;
    this.lastAlongM = 0;
    this.lastMatchedAt = null;
  }

  // Every voice instruction of the route at its distance from the start, in order.
  announcementsOf() {
    const along = this.line.along;
    if (!along.length) return [];
    const result = [];
    this.steps.forEach((step, stepIndex) => {
      const start = along[Math.min(step.geometryStart ?? 0, along.length - 1)];
      const end = along[Math.min(step.geometryEnd ?? 0, along.length - 1)];
      for (const voice of step.voiceInstructions || []) {
        result.push({
          alongM: Math.min(start + voice.distanceAlongStepM, Math.max(end, start)), text: voice.announcement,
          stepIndex, distanceAlongStepM: voice.distanceAlongStepM, order: result.length,
        });
      }
    });
    return result.sort((a, b) => a.alongM - b.alongM || a.order - b.order);
  }

  // One fix at a time, in order (a re-route in flight holds the next fix back, as the Swift actor does).
  update(fix) {
    const run = () => this.apply(fix);
    this.busy = (this.busy || Promise.resolve()).then(run, run);
    return this.busy;
  }

  async apply(fix) {
    if (this.exited || this.arrived) return [];
    const events = [];
    this.lastFixAt = fix.recordedAt;
    const accuracy = fix.accuracyM ?? 10;
    const good = accuracy <= this.goodAccuracyM;
    if (this.searching) {
      if (!good) return [];
      this.searching = false;
      events.push({ type: 'restored' });
    }
    const elapsed = this.lastMatchedAt === null ? 0 : Math.max(0, (fix.recordedAt - this.lastMatchedAt) / 1000);
    const reach = this.lastMatchedAt === null ? FIRST_MATCH_M : 100 + FASTEST_MPS * elapsed;
    const match = this.line.match(fix, this.lastAlongM - 50, this.lastAlongM + reach);
    if (!match) return events;
    const threshold = this.offRouteM + Math.max(0, Math.min(accuracy, this.goodAccuracyM) - 10);
    if (good) this.offRouteCount = match.offsetM > threshold ? this.offRouteCount + 1 : 0;
    if (this.offRouteCount >= this.offRouteFixes) {
      this.offRouteCount = 0;
      events.push({ type: 'offRoute' });
      try {
        const fresh = await this.reroute(fix, fix.headingDeg);
        if (this.exited) return events;
        this.adopt(fresh);
        this.reroutes++;
        events.push({ type: 'rerouted', route: fresh });
        const rematched = this.line.match(fix, 0, 200);
        if (rematched) {
          this.remember(rematched, fix.recordedAt);
          events.push(...this.advance(rematched, fix.recordedAt));
        }
      } catch (error) {
        events.push({ type: 'rerouteFailed', error });
      }
      return events;
    }
    if (match.offsetM <= threshold) this.remember(match, fix.recordedAt);
    return events.concat(this.advance(match, fix.recordedAt));
  }

  remember(match, time) {
    this.lastAlongM = match.alongM;
    this.lastMatchedAt = time;
  }

  // Call every second or so.
  checkSignal(now = Date.now()) {
    if (this.exited || this.arrived || this.searching || now - this.lastFixAt < this.gpsLostAfterMs) return [];
    this.searching = true;
    return [{ type: 'searching' }];
  }

  exit() {
    this.exited = true;
  }

  resume(fresh = null, now = Date.now()) {
    this.exited = false;
    this.searching = false;
    this.offRouteCount = 0;
    this.lastFixAt = now;
    if (fresh) this.adopt(fresh);
  }

  advance(match, time) {
    const events = [];
    const list = this.announcements;
    while (this.nextAnnouncement < list.length && list[this.nextAnnouncement].alongM <= match.alongM + 1) {
      const item = list[this.nextAnnouncement];
      if (item.alongM >= match.alongM - STALE_ANNOUNCEMENT_M) events.push({ type: 'announce', ...item });
      this.nextAnnouncement++;
    }
    const along = this.line.along;
    const allSteps = this.steps;
    let stepIndex = 0;
    allSteps.forEach((step, index) => {
      if ((step.geometryStart ?? 0) < along.length && along[step.geometryStart ?? 0] <= match.alongM + 0.5) stepIndex = index;
    });
    const remainingM = Math.max(0, this.line.length - match.alongM);
    const remainingS = this.remainingDuration(stepIndex, match.alongM);
    const next = allSteps[stepIndex + 1] || null;
    const nextAtM = next ? along[Math.min(next.geometryStart ?? 0, along.length - 1)] : this.line.length;
    events.push({
      type: 'progress', snapped: match.point, segment: match.segment, alongM: match.alongM, remainingM, remainingS,
      eta: time + remainingS * 1000, stepIndex, step: allSteps[stepIndex] || null, next,
      toNextM: Math.max(0, nextAtM - match.alongM), offRouteM: match.offsetM,
    });
    // Arrival is the end of the route, measured along it: a loop can pass within metres of the door long before.
    if (remainingM <= this.arrivalRadiusM) {
      this.arrived = true;
      // The arrival announcement sits at the very end; say it now rather than never.
      const progress = events.pop();
      while (this.nextAnnouncement < list.length) {
        const item = list[this.nextAnnouncement];
        if (item.alongM >= match.alongM - STALE_ANNOUNCEMENT_M) events.push({ type: 'announce', ...item });
        this.nextAnnouncement++;
      }
      events.push(progress, { type: 'arrived' });
    }
    return events;
  }

  // The rest of the current step by the fraction left of it, plus every later step.
  remainingDuration(index, alongM) {
    const allSteps = this.steps;
    const along = this.line.along;
    if (index >= allSteps.length || !along.length) return 0;
    const step = allSteps[index];
    const start = along[Math.min(step.geometryStart ?? 0, along.length - 1)];
    const end = along[Math.min(step.geometryEnd ?? 0, along.length - 1)];
    const fractionLeft = end > start ? Math.max(0, Math.min(1, (end - alongM) / (end - start))) : 0;
    return step.durationS * fractionLeft + allSteps.slice(index + 1).reduce((sum, s) => sum + s.durationS, 0);
  }
}
