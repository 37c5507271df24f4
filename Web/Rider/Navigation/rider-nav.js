// @ts-check
// The navigation screen (RDR-017): the route from GET /api/v1/rider/tasks/{taskId}/route on the shared map in the
// colours of its traffic, the rider's position and heading, the next manoeuvre with its distance, what is left and
// the ETA, spoken instructions, a re-route after a real deviation, "Searching for GPS signal", Re-center after a pan,
// and the screen kept awake. Loaded only when the rider first navigates, with the map (rider-nav-map.js), the words
// (rider-nav-words.js) and the voice (rider-nav-voice.js).
import { Guidance, decodePolyline, distanceM } from './rider-route.js';
import { t, distanceText, minutesText, clockText } from '../rider-i18n.js';
import { FollowingMap, FOLLOW_ZOOM } from './rider-nav-map.js';
import { icon, upcoming, announcement } from './rider-nav-words.js';
import { Voice } from './rider-nav-voice.js';

// The page's element of that id, typed any: callers use it as the input, form or dialog they know it is.
/** @type {(id: string) => any} */
const $ = (id) => document.getElementById(id);

export class NavigationView {
  // app: {api, geo, config, onChange(), onExit(), onError(text)}
  constructor(app) {
    this.app = app;
    this.task = null;
    this.leg = null;
    this.guidance = null;
    this.route = null;
    this.visible = false;
    this.voice = new Voice();
    this.wakeLock = null;
    this.retryTimer = null;
    this.loading = false;
    this.arrived = false;
    this.signalTimer = null;
    this.map = new FollowingMap({ isVisible: () => this.visible });
    $('exit-navigation').addEventListener('click', () => this.exit());
    const simulate = $('simulate');
    if (app.config.demo === true) {
      $('simulate-row').hidden = false;
      simulate.checked = app.geo.simulating;
      simulate.addEventListener('change', () => this.simulate(simulate.checked));
    }
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible' && this.visible) this.keepAwake();
    });
    window.addEventListener('online', () => {
      if (this.visible && !this.route) this.load();
    });
  }

  get reroutes() {
    return this.guidance ? this.guidance.reroutes : 0;
  }

  // Navigation to the task's next stop (the store before pickup, the customer after).
  async start(task) {
    this.end();
    this.task = task;
    this.leg = task.nextStop ? task.nextStop.kind : null;
    this.visible = true;
    this.arrived = false;
    this.startedAt = Date.now();
    this.map.followRider();
    this.banner('…', '', '↑');
    $('nav-summary').textContent = '';
    this.signalTimer = setInterval(() => this.checkSignal(), 1000);
    this.app.onChange();
    this.keepAwake();
    const stop = task.nextStop;
    if (stop) {
      this.map.tiles.setMarkers([{ ...stop.location, colour: stop.kind === 'STORE' ? '#5b4bc4' : '#1f7a4d', shape: stop.kind === 'STORE' ? 'square' : 'pin', label: stop.name }]);
      const here = this.app.geo.last;
      // Until the route comes (or when it cannot): where to, and how far as the crow flies.
      this.banner(stop.name, here ? distanceText(distanceM(here, stop.location)) : '', '⚑');
      this.map.tiles.centerOn(here ? here.lat : stop.location.lat, here ? here.lon : stop.location.lon, FOLLOW_ZOOM);
      if (here) this.map.place(here, true);
    }
    await this.load();
  }

  // The task changed under navigation (a status tap, the server's word): the session ends when its stop is no longer
  // next, or once the rider is at the customer's door, where the proof is the next step, not the map.
  taskChanged(task) {
    this.task = task || this.task;
    if (!task || !task.nextStop || task.nextStop.kind !== this.leg || task.status === 'ARRIVED_AT_DESTINATION') this.end();
  }

  canResume(task) {
    return Boolean(this.guidance || this.leg) && !this.visible && task && task.nextStop && task.nextStop.kind === this.leg;
  }

  async load() {
    if (!this.task || this.loading) return;
    this.loading = true;
    clearTimeout(this.retryTimer);
    try {
      const route = await this.fetchRoute(this.startPoint());
      this.error('');
      this.adopt(route);
    } catch (error) {
      this.failed(error);
    } finally {
      this.loading = false;
    }
  }

  // Where the route starts: the GPS (or simulated) position; none yet → the server's last known one.
  startPoint() {
    const geo = this.app.geo;
    if (geo.simulating && !geo.last) return null;
    return geo.last;
  }

  async fetchRoute(from) {
    let path = `/api/v1/rider/tasks/${encodeURIComponent(this.task.taskId)}/route`;
    if (from) {
      path += `?from=${from.lat.toFixed(6)},${from.lon.toFixed(6)}`;
      if (Number.isFinite(from.headingDeg)) path += `&heading=${Math.round(from.headingDeg) % 360}`;
    }
    try {
      return await this.app.api.get(path, { timeoutMs: 10000 });
    } catch (error) {
      // The demo's simulated drive with no position the server can route from: start at the other stop.
      if (this.app.geo.simulating && !error.network && [400, 422].includes(error.status)) {
        const other = this.leg === 'STORE' ? this.task.customer.location : this.task.vendor.location;
        return this.app.api.get(`${path.split('?')[0]}?from=${other.lat},${other.lon}`, { timeoutMs: 10000 });
      }
      throw error;
    }
  }

  failed(error) {
    if (error.code === 'NAVIGATION_UNAVAILABLE' || error.status === 503 || error.status >= 500) {
      this.error(t('navUnavailable'));
      this.retryTimer = setTimeout(() => this.visible && this.load(), 10000);
    } else if (error.network) {
      this.error(t('navOffline'));
    } else if (error.status === 400 && !this.app.geo.last) {
      this.error(t('navWaitingForLocation'));
    } else if (error.status === 409) {
      this.end();
      this.app.onChange();
    } else {
      this.error((error.title || t('somethingWrong')) + (this.app.config.demo === true && !this.app.geo.simulating ? ` ${t('navTrySimulate')}` : ''));
    }
  }

  error(text) {
    const box = $('nav-error');
    box.textContent = text;
    box.hidden = !text;
  }

  adopt(route) {
    this.route = route;
    const points = decodePolyline(route.geometry || '');
    this.points = points;
    const reroute = async (from) => {
      const fresh = await this.fetchRoute(from);
      return fresh;
    };
    const destination = this.task.nextStop ? this.task.nextStop.location : points[points.length - 1];
    if (!this.guidance) {
      this.guidance = new Guidance(route, destination, this.app.config, reroute);
    } else {
      this.guidance.adopt(route);
    }
    this.map.tiles.setRoute(points, route.congestion || [], -1);
    const allSteps = this.guidance.steps;
    this.banner(upcoming(allSteps[1] || allSteps[0]), allSteps[1] ? distanceText(allSteps[0].distanceM) : '', icon(allSteps[1] || allSteps[0]));
    this.summary(route.distanceM, route.durationS, Date.now() + route.durationS * 1000);
    if (this.app.geo.simulating) this.app.geo.simulateAlong(points);
    if (!this.app.geo.last && points.length) this.map.tiles.centerOn(points[0].lat, points[0].lon, FOLLOW_ZOOM);
    this.map.draw();
    const here = this.app.geo.last;
    if (here) this.onFix(here);
  }

  banner(text, distance, glyph) {
    $('maneuver').textContent = text;
    $('maneuver-distance').textContent = distance;
    $('maneuver-icon').textContent = glyph;
  }

  summary(metres, seconds, eta) {
    $('nav-summary').textContent = t('navSummary', { distance: distanceText(metres), minutes: minutesText(seconds), time: clockText(eta) });
  }

  async onFix(fix) {
    if (!this.visible) return;
    $('gps-lost').hidden = true;
    if (!this.guidance) {
      this.map.place(fix, false);
      if (!this.route && !this.loading && $('nav-error').textContent === t('navWaitingForLocation')) this.load();
      return;
    }
    const events = await this.guidance.update(fix);
    let progress = null;
    for (const event of events) {
      switch (event.type) {
        case 'announce':
          this.voice.speak(announcement(event, this.guidance.steps));
          break;
        case 'progress':
          progress = event;
          break;
        case 'offRoute':
          $('nav-status').textContent = t('navRerouting');
          break;
        case 'rerouted':
          $('nav-status').textContent = '';
          this.error('');
          this.route = event.route;
          this.points = decodePolyline(event.route.geometry || '');
          this.map.tiles.setRoute(this.points, event.route.congestion || [], -1);
          if (this.app.geo.simulating) this.app.geo.simulateAlong(this.points);
          break;
        case 'rerouteFailed':
          $('nav-status').textContent = '';
          this.error(event.error && event.error.network ? t('navOffline')
            : event.error && (event.error.status === 503 || event.error.code === 'NAVIGATION_UNAVAILABLE') ? t('navUnavailable')
              : (event.error && event.error.title) || t('navUnavailable'));
          break;
        case 'restored':
          $('gps-lost').hidden = true;
          break;
        case 'arrived':
          this.arrived = true;
          break;
        default:
          break;
      }
    }
    if (progress) {
      const next = progress.next;
      this.banner(upcoming(next || progress.step), next ? distanceText(progress.toNextM) : '', icon(next || progress.step));
      this.summary(progress.remainingM, progress.remainingS, progress.eta);
      this.map.tiles.setRouteProgress(progress.segment);
      const near = progress.offRouteM <= (this.app.config.offRouteM ?? 40);
      this.map.place(near ? { ...fix, lat: progress.snapped.lat, lon: progress.snapped.lon } : fix, false);
    } else {
      this.map.place(fix, false);
    }
    if (this.arrived) {
      this.banner(t('navArrived', { name: this.task.nextStop ? this.task.nextStop.name : '' }), '', '⚑');
    }
  }

  checkSignal() {
    if (!this.visible) return;
    if (!this.guidance) {
      // No route (yet): the same rule on the raw fixes.
      const silentMs = (this.app.config.gpsLostAfterS ?? 10) * 1000;
      const last = this.app.geo.last ? Math.max(this.app.geo.last.recordedAt, this.startedAt) : this.startedAt;
      if (Date.now() - last >= silentMs) $('gps-lost').hidden = false;
      return;
    }
    for (const event of this.guidance.checkSignal()) {
      if (event.type === 'searching') $('gps-lost').hidden = false;
    }
  }

  async simulate(on) {
    this.app.geo.simulate(on);
    if (on && this.visible) {
      this.guidance = null;
      this.route = null;
      await this.load();
    }
  }

  async keepAwake() {
    if (!('wakeLock' in navigator) || this.wakeLock) return;
    try {
      this.wakeLock = await navigator.wakeLock.request('screen');
      this.wakeLock.addEventListener('release', () => { this.wakeLock = null; });
    } catch (error) {
      // Refused (battery saver, a hidden page): the screen follows the phone's own timeout.
    }
  }

  release() {
    if (this.wakeLock) this.wakeLock.release().catch(() => {});
    this.wakeLock = null;
  }

  // "Exit Navigation": the task screen again; the session is kept for "Resume Navigation".
  exit() {
    if (!this.visible) return;
    this.visible = false;
    if (this.guidance) this.guidance.exit();
    this.map.stop();
    clearTimeout(this.retryTimer);
    this.release();
    this.app.onChange();
  }

  async resume() {
    this.visible = true;
    this.startedAt = Date.now();
    clearInterval(this.signalTimer);
    this.signalTimer = setInterval(() => this.checkSignal(), 1000);
    this.map.followRider();
    this.app.onChange();
    this.keepAwake();
    if (this.guidance) this.guidance.resume();
    // From where the rider is now: a new route when they moved meanwhile.
    if (this.app.geo.last || !this.route) {
      this.loading = false;
      await this.load();
    } else {
      this.map.draw();
    }
  }

  // The session is over (the stop was reached and tapped, the task ended).
  end() {
    const wasVisible = this.visible;
    this.visible = false;
    this.guidance = null;
    this.route = null;
    this.leg = null;
    this.arrived = false;
    this.map.forget();
    clearTimeout(this.retryTimer);
    clearInterval(this.signalTimer);
    this.map.tiles.setRoute(null);
    this.error('');
    $('gps-lost').hidden = true;
    if (this.app.geo.simulating) this.app.geo.simulateAlong(null);
    this.release();
    if (wasVisible) this.app.onChange();
  }
}
