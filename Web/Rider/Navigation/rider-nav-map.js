// @ts-check
// The navigation map that follows the rider: the marker glides to each new position, the map keeps it in the
// middle until the rider pans, and Re-center brings it back.
import { TileMap } from '../../Shared/map.js';

// The page's element of that id, typed any: callers use it as the input, form or dialog they know it is.
/** @type {(id: string) => any} */
const $ = (id) => document.getElementById(id);
export const FOLLOW_ZOOM = 16;

export class FollowingMap {
  // isVisible(): whether navigation shows, since nothing is drawn behind the task screen.
  constructor({ isVisible }) {
    this.isVisible = isVisible;
    this.follow = true;
    this.shown = null;
    this.target = null;
    this.animation = 0;
    this.tiles = new TileMap($('map'), document.body.dataset.tileUrl || null, { margin: 256 });
    this.tiles.enablePanning(() => {
      this.follow = false;
      $('recenter').hidden = false;
    });
    $('recenter').addEventListener('click', () => this.recenter());
  }

  // A new or resumed session starts following the rider, whatever the last one was left at.
  followRider() {
    this.follow = true;
    $('recenter').hidden = true;
  }

  // The marker glides to each new position over a second instead of jumping; the map follows it.
  place(fix, jump) {
    const to = { lat: fix.lat, lon: fix.lon, heading: fix.headingDeg, accuracyM: fix.accuracyM };
    const from = jump || !this.shown ? to : this.shown;
    const started = performance.now();
    this.target = to;
    cancelAnimationFrame(this.animation);
    const step = (now) => {
      const k = Math.min(1, (now - started) / 900);
      this.shown = {
        lat: from.lat + (to.lat - from.lat) * k, lon: from.lon + (to.lon - from.lon) * k, heading: to.heading, accuracyM: to.accuracyM,
      };
      this.draw();
      if (k < 1 && this.target === to && this.isVisible()) this.animation = requestAnimationFrame(step);
    };
    this.animation = requestAnimationFrame(step);
  }

  draw() {
    if (!this.isVisible()) return;
    if (this.shown) {
      this.tiles.setPosition(this.shown);
      if (this.follow) {
        this.tiles.centerOn(this.shown.lat, this.shown.lon, this.tiles.z);
        return; // centerOn drew
      }
    }
    this.tiles.draw();
  }

  recenter() {
    this.follow = true;
    $('recenter').hidden = true;
    this.tiles.z = FOLLOW_ZOOM;
    if (this.shown) this.tiles.centerOn(this.shown.lat, this.shown.lon, FOLLOW_ZOOM);
    else this.tiles.draw();
  }

  stop() {
    cancelAnimationFrame(this.animation);
  }

  // The session is over: the next one starts from the rider's position, not from where the marker was.
  forget() {
    this.shown = null;
    this.stop();
  }
}
