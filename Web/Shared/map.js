// @ts-check
// A small canvas map drawn from the server's own road tiles (/map/tiles/z/x/y), or from the operator's raster tile
// server when one is configured: no tile provider by default, no library.
const TILE = 512; // CSS pixels per tile

/** @typedef {{lat: number, lon: number}} LatLon */
/** A point in tile units of one zoom level (world()), or in CSS pixels on the canvas (toScreen()).
 * @typedef {[number, number]} XY */
/**
 * A marker: a rider ('rider': a dot, or an arrow along `heading`), a store ('square') or a place ('pin'), with an
 * optional name written on `labelSide` of it ('right', 'left', 'above', 'below'; labelPlace()).
 * @typedef {{lat: number, lon: number, colour: string, shape?: string, heading?: number | null, small?: boolean,
 *   label?: string | null, labelSide?: string}} Marker
 */
/** The rider's own position (heading in degrees from north).
 * @typedef {{lat: number, lon: number, heading?: number | null, accuracyM?: number | null}} Position */
/**
 * A road tile as /map/tiles/z/x/y sends it: lines are flat [x0, y0, x1, y1, …] in units of `extent` per tile.
 * @typedef {{extent: number, sea?: number[][], coast?: number[][], roads: {class: string, lines: number[][]}[]}}
 *   VectorTile
 */
/**
 * A route on the map, its points projected at zoom `z` once (xy).
 * @typedef {{points: LatLon[], congestion: string[], passed: number, z: number | null, xy: XY[] | null}} Route
 */
/** @typedef {[string, number]} RoadLook colour and line width */
// Big roads in sand and pale yellow, the rest in greys: never the orange, green, red or purple the pages give riders
// (on a task, free, stale) and traffic, so a road is never read as a rider or a jam.
/** @type {Record<string, RoadLook>} */
const STYLE = {
  motorway: ['#d9b779', 5], trunk: ['#d9b779', 4.5], primary: ['#e3c98f', 4], secondary: ['#e8d8a8', 3.5],
  tertiary: ['#aab0b8', 3], link: ['#aab0b8', 2.5], minor: ['#b5bac1', 2], service: ['#c8ccd2', 1.2],
};
// For a customer's map: red, orange and yellow roads read as traffic, which the customer is not shown. Widths alone
// tell the big roads.
/** @type {Record<string, RoadLook>} */
const PLAIN = Object.fromEntries(Object.entries(STYLE).map(([name, [, width]]) => [name, [width >= 4 ? '#8a8f98' : '#a4a9b0', width]]));
const LAND = '#eef0f2';
const SEA = '#c6dcef';
const COAST = '#8fb3d6';
// A route's traffic, as the routing API reports it per segment; the part already driven is grey.
/** @type {Record<string, string>} */
export const TRAFFIC = { LOW: '#1e8e3e', MODERATE: '#e37400', HEAVY: '#c5221f', SEVERE: '#7b1010', UNKNOWN: '#1a73e8' };
const PASSED = '#9aa0a6';

export const LABEL_FONT = '600 13px system-ui, sans-serif';

// Where a marker's label is written (its text's left end and baseline): right of the marker by default, or on the
// side a page chose so that labels of riders close together do not cover one another; right of the marker near the
// left edge, left of it near the right edge.
/**
 * @param {number} sx
 * @param {number} sy
 * @param {number} labelWidth
 * @param {number} viewWidth
 * @param {string} [side]
 * @returns {XY}
 */
export function labelPlace(sx, sy, labelWidth, viewWidth, side = 'right') {
  if (side === 'above') return [sx - labelWidth / 2, sy - 15];
  if (side === 'below') return [sx - labelWidth / 2, sy + 24];
  const right = side === 'left' ? sx - 13 - labelWidth < 4 : sx + 13 + labelWidth <= viewWidth - 4;
  return right ? [sx + 13, sy + 4] : [sx - 13 - labelWidth, sy + 4];
}

/**
 * Where a place lies in tile units at zoom z (Web Mercator).
 * @param {number} lat
 * @param {number} lon
 * @param {number} z
 * @returns {XY}
 */
export function world(lat, lon, z) {
  const n = 2 ** z;
  const rad = (Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI) / 180;
  return [((lon + 180) / 360) * n, ((1 - Math.asinh(Math.tan(rad)) / Math.PI) / 2) * n];
}

export class TileMap {
  // rasterTemplate: the operator's tile URL template (LOGISTICS_TILE_URL, with {z}, {x}, {y}; 256-px tiles).
  // options (all optional, for a moving map such as the rider's navigation):
  //   margin: CSS pixels of roads drawn beyond each edge, so a view that moves by less than that only shifts the
  //           road layer instead of drawing it again (default 0: the layer is redrawn whenever the view moves);
  //   plainRoads: every road in greys (the customer's map: coloured roads would read as traffic).
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {string | null} [rasterTemplate]
   * @param {{margin?: number, plainRoads?: boolean}} [options]
   */
  constructor(canvas, rasterTemplate = document.body.dataset.tileUrl || null, options = {}) {
    this.canvas = canvas;
    this.raster = rasterTemplate;
    /** @type {Map<string, VectorTile | HTMLImageElement | null>} tiles by key; null while asked for (or none) */
    this.tiles = new Map();
    /** @type {Marker[]} */
    this.markers = [];
    this.z = 15;
    /** @type {XY | null} set by fit() or centerOn(); nothing is drawn before */
    this.center = null;
    // The roads are drawn once per view into a layer of their own; markers move over it without redrawing them.
    this.base = document.createElement('canvas');
    this.baseKey = '';
    /** @type {XY | null} */
    this.baseCenter = null;
    this.tilesVersion = 0;
    this.margin = options.margin || 0;
    this.roadStyle = options.plainRoads ? PLAIN : STYLE;
    /** @type {Route | null} setRoute() */
    this.route = null;
    /** @type {Position | null} setPosition() */
    this.position = null;
    this.tileFrame = 0; // the frame that draws tiles just arrived
    this.noTiles = false; // the server has no road map
    new ResizeObserver(() => this.draw()).observe(canvas);
  }

  // Centre the view on a place (and optionally change the zoom level).
  /**
   * @param {number} lat
   * @param {number} lon
   * @param {number} [z]
   */
  centerOn(lat, lon, z = this.z) {
    this.z = z;
    this.center = world(lat, lon, z);
    this.draw();
  }

  // A route drawn under the markers in the colours of its traffic: points [{lat, lon}], congestion one entry per
  // segment (LOW, MODERATE, HEAVY, SEVERE, UNKNOWN, or GAP for a segment left out, between two pieces of a path);
  // `passed` (a segment index) greys out what lies behind.
  /**
   * @param {LatLon[] | null} points
   * @param {string[]} [congestion]
   * @param {number} [passed]
   */
  setRoute(points, congestion = [], passed = -1) {
    this.route = points && points.length > 1 ? { points, congestion, passed, z: null, xy: null } : null;
    this.draw();
  }

  /** @param {number} passed */
  setRouteProgress(passed) {
    if (this.route) this.route.passed = passed;
  }

  // The rider's own position: {lat, lon, heading (degrees from north, or null), accuracyM}; null hides it.
  /** @param {Position | null} position */
  setPosition(position) {
    this.position = position;
  }

  // Drag to pan (mouse, pen or one finger); onPan is told when the person moved the map.
  /** @param {(() => void) | null} [onPan] */
  enablePanning(onPan) {
    const canvas = this.canvas;
    /** @type {XY | null} */
    let last = null;
    canvas.addEventListener('pointerdown', (event) => {
      if (this.center === null) return;
      last = [event.clientX, event.clientY];
      canvas.setPointerCapture(event.pointerId);
    });
    canvas.addEventListener('pointermove', (event) => {
      if (!last || this.center === null) return;
      const dx = event.clientX - last[0];
      const dy = event.clientY - last[1];
      if (Math.abs(dx) + Math.abs(dy) < 1) return;
      last = [event.clientX, event.clientY];
      this.center = [this.center[0] - dx / TILE, this.center[1] - dy / TILE];
      if (onPan) onPan();
      this.draw();
    });
    const end = () => { last = null; };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
    canvas.addEventListener('wheel', (event) => {
      if (this.center === null) return;
      event.preventDefault();
      const z = Math.max(12, Math.min(18, this.z + (event.deltaY < 0 ? 1 : -1)));
      if (z === this.z) return;
      const scale = 2 ** (z - this.z);
      this.center = [this.center[0] * scale, this.center[1] * scale];
      this.z = z;
      if (onPan) onPan();
      this.draw();
    }, { passive: false });
  }

  // Zoom and centre so every point is on screen with a margin.
  /** @param {LatLon[]} points */
  fit(points) {
    if (points.length === 0) return;
    const width = this.canvas.clientWidth || 360;
    const height = this.canvas.clientHeight || 300;
    for (let z = 17; z >= 11; z--) {
      const xy = points.map((p) => world(p.lat, p.lon, z));
      const xs = xy.map((p) => p[0]);
      const ys = xy.map((p) => p[1]);
      const spanX = (Math.max(...xs) - Math.min(...xs)) * TILE;
      const spanY = (Math.max(...ys) - Math.min(...ys)) * TILE;
      if (spanX <= width * 0.8 && spanY <= height * 0.8) {
        this.z = z;
        this.center = [(Math.max(...xs) + Math.min(...xs)) / 2, (Math.max(...ys) + Math.min(...ys)) / 2];
        break;
      }
    }
    this.draw();
  }

  /** @param {Marker[]} markers */
  setMarkers(markers) {
    this.markers = markers;
    this.draw();
  }

  // Where a place is on the canvas, in CSS pixels from its top left (the map must have a centre).
  /**
   * @param {number} lat
   * @param {number} lon
   * @returns {XY}
   */
  toScreen(lat, lon) {
    const [x, y] = world(lat, lon, this.z);
    const width = this.canvas.clientWidth;
    const height = this.canvas.clientHeight;
    const center = /** @type {XY} */ (this.center);
    return [(x - center[0]) * TILE + width / 2, (y - center[1]) * TILE + height / 2];
  }

  /**
   * @param {string} key
   * @param {VectorTile | HTMLImageElement | null} tile
   */
  loaded(key, tile) {
    this.tiles.set(key, tile);
    this.tilesVersion++;
    // Tiles arriving together are drawn together, once, at the next frame (each draw redraws every road in view).
    if (this.tileFrame) return;
    this.tileFrame = requestAnimationFrame(() => {
      this.tileFrame = 0;
      this.draw();
    });
  }

  /**
   * The road tile, or null while it is asked for (or when there is none).
   * @param {number} z
   * @param {number} x
   * @param {number} y
   * @returns {VectorTile | null}
   */
  tile(z, x, y) {
    const key = `${z}/${x}/${y}`;
    // A server without a road map answers 503 for every tile: asked once, not for each tile of each view.
    if (this.noTiles) return null;
    if (!this.tiles.has(key)) {
      this.tiles.set(key, null);
      fetch(`/map/tiles/${key}`)
        .then((response) => {
          if (response.status === 503) this.noTiles = true;
          return response.ok ? response.json() : null;
        })
        .then((tile) => this.loaded(key, tile))
        // Offline: asked again a little later, not on every frame.
        .catch(() => setTimeout(() => this.tiles.delete(key), 5000));
    }
    return /** @type {VectorTile | null} */ (this.tiles.get(key));
  }

  /**
   * The operator's raster tile, or null while it loads.
   * @param {number} z
   * @param {number} x
   * @param {number} y
   * @returns {HTMLImageElement | null}
   */
  rasterTile(z, x, y) {
    const key = `r${z}/${x}/${y}`;
    if (!this.tiles.has(key)) {
      const image = new Image();
      this.tiles.set(key, null);
      image.onload = () => this.loaded(key, image);
      image.onerror = () => this.tiles.delete(key);
      image.src = String(this.raster).replace('{z}', String(z)).replace('{x}', String(x)).replace('{y}', String(y));
    }
    return /** @type {HTMLImageElement | null} */ (this.tiles.get(key) ?? null);
  }

  /**
   * @param {CanvasRenderingContext2D} g
   * @param {VectorTile} tile
   * @param {number} originX
   * @param {number} originY
   */
  drawVectorTile(g, tile, originX, originY) {
    const unit = TILE / tile.extent;
    /** @param {number[]} line */
    const path = (line) => {
      g.moveTo(originX + line[0] * unit, originY + line[1] * unit);
      for (let i = 2; i < line.length; i += 2) g.lineTo(originX + line[i] * unit, originY + line[i + 1] * unit);
    };
    if (tile.sea && tile.sea.length) {
      g.fillStyle = SEA;
      g.beginPath();
      for (const ring of tile.sea) path(ring);
      g.fill('evenodd');
    }
    if (tile.coast && tile.coast.length) {
      g.strokeStyle = COAST;
      g.lineWidth = 1.5;
      g.beginPath();
      for (const line of tile.coast) path(line);
      g.stroke();
    }
    for (const road of tile.roads) {
      const [colour, lineWidth] = this.roadStyle[road.class] || this.roadStyle.minor;
      g.strokeStyle = colour;
      g.lineWidth = lineWidth;
      g.beginPath();
      for (const line of road.lines) path(line);
      g.stroke();
    }
  }

  /**
   * The road layer for a view of this size (CSS pixels) at this device pixel ratio; the map has a centre.
   * @param {number} viewWidth
   * @param {number} viewHeight
   * @param {number} ratio
   */
  drawBase(viewWidth, viewHeight, ratio) {
    const base = this.base;
    const margin = this.margin;
    const center = /** @type {XY} */ (this.center);
    // With a margin the layer is kept while the view stays within it (it is only shifted); without one, any move
    // of the view draws it again, as before.
    const key = `${this.z}|${margin ? '' : center}|${viewWidth}|${viewHeight}|${ratio}|${this.tilesVersion}`;
    const shifted = this.baseCenter === null ? Infinity : Math.max(
      Math.abs(center[0] - this.baseCenter[0]), Math.abs(center[1] - this.baseCenter[1])) * TILE;
    if (key === this.baseKey && shifted <= margin) return;
    this.baseKey = key;
    this.baseCenter = [center[0], center[1]];
    const width = viewWidth + 2 * margin;
    const height = viewHeight + 2 * margin;
    base.width = Math.round(width * ratio);
    base.height = Math.round(height * ratio);
    const g = /** @type {CanvasRenderingContext2D} */ (base.getContext('2d'));
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.fillStyle = LAND;
    g.fillRect(0, 0, width, height);
    const z = this.z;
    const left = Math.floor(center[0] - width / 2 / TILE);
    const right = Math.floor(center[0] + width / 2 / TILE);
    const top = Math.floor(center[1] - height / 2 / TILE);
    const bottom = Math.floor(center[1] + height / 2 / TILE);
    g.lineCap = 'round';
    g.lineJoin = 'round';
    const last = 2 ** z - 1;
    for (let x = Math.max(0, left); x <= Math.min(last, right); x++) {
      for (let y = Math.max(0, top); y <= Math.min(last, bottom); y++) {
        // Whole pixels, so neighbouring tiles' sea meets without an anti-aliased seam.
        const originX = Math.round((x - center[0]) * TILE + width / 2);
        const originY = Math.round((y - center[1]) * TILE + height / 2);
        if (this.raster) {
          // Raster servers cut 256-px tiles: one of our tiles is four of theirs one zoom level deeper.
          for (let i = 0; i < 4; i++) {
            const image = this.rasterTile(z + 1, 2 * x + (i & 1), 2 * y + (i >> 1));
            if (image) g.drawImage(image, originX + (i & 1) * (TILE / 2), originY + (i >> 1) * (TILE / 2), TILE / 2, TILE / 2);
          }
        } else {
          const tile = this.tile(z, x, y);
          if (tile) this.drawVectorTile(g, tile, originX, originY);
        }
      }
    }
  }

  draw() {
    const canvas = this.canvas;
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    const center = this.center;
    if (width === 0 || height === 0 || center === null) return;
    if (canvas.width !== Math.round(width * ratio)) canvas.width = Math.round(width * ratio);
    if (canvas.height !== Math.round(height * ratio)) canvas.height = Math.round(height * ratio);
    this.drawBase(width, height, ratio);
    const g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
    g.setTransform(1, 0, 0, 1, 0, 0);
    // Whole device pixels, so the roads stay sharp while the layer is shifted (drawBase set baseCenter).
    const baseCenter = /** @type {XY} */ (this.baseCenter);
    const offsetX = Math.round(((baseCenter[0] - center[0]) * TILE - this.margin) * ratio);
    const offsetY = Math.round(((baseCenter[1] - center[1]) * TILE - this.margin) * ratio);
    g.drawImage(this.base, offsetX, offsetY);
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    if (this.route) this.drawRoute(g, this.route, center);
    for (const marker of this.markers) {
      const [sx, sy] = this.toScreen(marker.lat, marker.lon);
      if (sx < -20 || sy < -20 || sx > width + 20 || sy > height + 20) continue;
      g.fillStyle = marker.colour;
      g.strokeStyle = '#ffffff';
      g.lineWidth = marker.small ? 1.5 : 3;
      g.beginPath();
      if (marker.shape === 'square') g.rect(sx - 8, sy - 8, 16, 16);
      else if (marker.heading != null) {
        // An arrow pointing where the rider is heading (degrees clockwise from north).
        const size = marker.small ? 7 : 11;
        const angle = (marker.heading * Math.PI) / 180;
        const sin = Math.sin(angle);
        const cos = Math.cos(angle);
        /** @type {(along: number, across: number) => XY} */
        const at = (along, across) => [sx + along * sin + across * cos, sy - along * cos + across * sin];
        g.moveTo(...at(size, 0));
        g.lineTo(...at(-size * 0.7, size * 0.75));
        g.lineTo(...at(-size * 0.35, 0));
        g.lineTo(...at(-size * 0.7, -size * 0.75));
        g.closePath();
      } else g.arc(sx, sy, marker.small ? 5 : marker.shape === 'rider' ? 10 : 8, 0, 2 * Math.PI);
      g.fill();
      g.stroke();
    }
    // Names over every marker, so a neighbour drawn later never cuts one.
    g.font = LABEL_FONT;
    g.lineWidth = 4;
    g.strokeStyle = '#ffffff';
    g.fillStyle = '#1d2127';
    for (const marker of this.markers) {
      if (!marker.label) continue;
      const [sx, sy] = this.toScreen(marker.lat, marker.lon);
      if (sx < -20 || sy < -20 || sx > width + 20 || sy > height + 20) continue;
      const [lx, ly] = labelPlace(sx, sy, g.measureText(marker.label).width, width, marker.labelSide);
      g.strokeText(marker.label, lx, ly);
      g.fillText(marker.label, lx, ly);
    }
    if (this.position) this.drawPosition(g, this.position, width, height);
  }

  // The route in traffic colours over a white casing; its points are projected once per zoom level, so a frame
  // only shifts them.
  /**
   * @param {CanvasRenderingContext2D} g
   * @param {Route} route
   * @param {XY} center
   */
  drawRoute(g, route, center) {
    const z = this.z;
    const xy = route.z === z && route.xy ? route.xy : route.points.map((p) => world(p.lat, p.lon, z));
    route.xy = xy;
    route.z = z;
    const width = this.canvas.clientWidth;
    const height = this.canvas.clientHeight;
    const cx = center[0];
    const cy = center[1];
    /** @type {(i: number) => XY} */
    const at = (i) => [(xy[i][0] - cx) * TILE + width / 2, (xy[i][1] - cy) * TILE + height / 2];
    /** @param {number} i */
    const colour = (i) => (i < route.passed ? PASSED : TRAFFIC[route.congestion[i]] || TRAFFIC.UNKNOWN);
    g.lineCap = 'round';
    g.lineJoin = 'round';
    g.strokeStyle = '#ffffff';
    g.lineWidth = 10;
    /** @param {number} i */
    const gap = (i) => route.congestion[i] === 'GAP';
    g.beginPath();
    g.moveTo(...at(0));
    for (let i = 1; i < xy.length; i++) {
      if (gap(i - 1)) g.moveTo(...at(i));
      else g.lineTo(...at(i));
    }
    g.stroke();
    // One path per run of segments of one colour.
    g.lineWidth = 6;
    let i = 0;
    while (i < xy.length - 1) {
      const runColour = colour(i);
      const skipped = gap(i);
      g.strokeStyle = runColour;
      g.beginPath();
      g.moveTo(...at(i));
      while (i < xy.length - 1 && colour(i) === runColour && gap(i) === skipped) {
        i++;
        g.lineTo(...at(i));
      }
      if (!skipped) g.stroke();
    }
  }

  // The rider: an arrow pointing where they head (a dot when the heading is unknown) in its accuracy circle.
  /**
   * @param {CanvasRenderingContext2D} g
   * @param {Position} p
   * @param {number} width
   * @param {number} height
   */
  drawPosition(g, p, width, height) {
    const [sx, sy] = this.toScreen(p.lat, p.lon);
    if (sx < -40 || sy < -40 || sx > width + 40 || sy > height + 40) return;
    if (p.accuracyM) {
      const metresPerPixel = (40075016.7 * Math.cos((p.lat * Math.PI) / 180)) / (2 ** this.z * TILE);
      const radius = Math.min(200, p.accuracyM / metresPerPixel);
      if (radius > 12) {
        g.fillStyle = 'rgba(11, 92, 173, 0.12)';
        g.beginPath();
        g.arc(sx, sy, radius, 0, 2 * Math.PI);
        g.fill();
      }
    }
    g.fillStyle = '#0b5cad';
    g.strokeStyle = '#ffffff';
    g.lineWidth = 3;
    g.beginPath();
    if (p.heading != null && Number.isFinite(p.heading)) {
      const angle = (p.heading * Math.PI) / 180;
      const sin = Math.sin(angle);
      const cos = Math.cos(angle);
      /** @type {(along: number, across: number) => XY} */
      const point = (along, across) => [sx + along * sin + across * cos, sy - along * cos + across * sin];
      g.moveTo(...point(15, 0));
      g.lineTo(...point(-10, 11));
      g.lineTo(...point(-5, 0));
      g.lineTo(...point(-10, -11));
      g.closePath();
    } else {
      g.arc(sx, sy, 9, 0, 2 * Math.PI);
    }
    g.fill();
    g.stroke();
  }
}

// An encoded polyline (precision 6, as the API sends) to [{lat, lon}].
/**
 * @param {string} text
 * @param {number} [precision]
 * @returns {LatLon[]}
 */
export function decodePolyline(text, precision = 6) {
  const factor = 10 ** precision;
  /** @type {LatLon[]} */
  const points = [];
  let index = 0;
  let lat = 0;
  let lon = 0;
  const next = () => {
    let result = 0;
    let shift = 0;
    let byte;
    do {
      if (index >= text.length) throw new Error('truncated polyline');
      byte = text.charCodeAt(index++) - 63;
      result |= (byte & 0x1f) << shift;
      shift += 5;
    } while (byte >= 0x20);
    return result & 1 ? ~(result >> 1) : result >> 1;
  };
  while (index < text.length) {
    lat += next();
    lon += next();
    points.push({ lat: lat / factor, lon: lon / factor });
  }
  return points;
}
