// A small canvas map drawn from the server's own road tiles (/map/tiles/z/x/y), or from the operator's raster tile
// server when one is configured: no tile provider by default, no library.
const TILE = 512; // CSS pixels per tile
const STYLE = {
  motorway: ['#c0563c', 5], trunk: ['#c0563c', 4.5], primary: ['#d08a3c', 4], secondary: ['#c9a449', 3.5],
  tertiary: ['#8a8f98', 3], link: ['#8a8f98', 2.5], minor: ['#9aa0a8', 2], service: ['#b8bcc2', 1.2],
};
const LAND = '#eef0f2';
const SEA = '#c6dcef';
const COAST = '#8fb3d6';

export function world(lat, lon, z) {
  const n = 2 ** z;
  const rad = (Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI) / 180;
  return [((lon + 180) / 360) * n, ((1 - Math.asinh(Math.tan(rad)) / Math.PI) / 2) * n];
}

export class TileMap {
  // rasterTemplate: the operator's tile URL template (LOGISTICS_TILE_URL, with {z}, {x}, {y}; 256-px tiles).
  constructor(canvas, rasterTemplate = document.body.dataset.tileUrl || null) {
    this.canvas = canvas;
    this.raster = rasterTemplate;
    this.tiles = new Map();
    this.markers = [];
    this.z = 15;
    this.center = null; // set by fit(); nothing is drawn before
    // The roads are drawn once per view into a layer of their own; markers move over it without redrawing them.
    this.base = document.createElement('canvas');
    this.baseKey = '';
    this.tilesVersion = 0;
    new ResizeObserver(() => this.draw()).observe(canvas);
  }

  // Zoom and centre so every point is on screen with a margin.
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

  setMarkers(markers) {
    this.markers = markers;
    this.draw();
  }

  toScreen(lat, lon) {
    const [x, y] = world(lat, lon, this.z);
    const width = this.canvas.clientWidth;
    const height = this.canvas.clientHeight;
    return [(x - this.center[0]) * TILE + width / 2, (y - this.center[1]) * TILE + height / 2];
  }

  loaded(key, tile) {
    this.tiles.set(key, tile);
    this.tilesVersion++;
    this.draw();
  }

  tile(z, x, y) {
    const key = `${z}/${x}/${y}`;
    if (!this.tiles.has(key)) {
      this.tiles.set(key, null);
      fetch(`/map/tiles/${key}`)
        .then((response) => (response.ok ? response.json() : null))
        .then((tile) => this.loaded(key, tile))
        .catch(() => this.tiles.delete(key));
    }
    return this.tiles.get(key);
  }

  rasterTile(z, x, y) {
    const key = `r${z}/${x}/${y}`;
    if (!this.tiles.has(key)) {
      const image = new Image();
      this.tiles.set(key, null);
      image.onload = () => this.loaded(key, image);
      image.onerror = () => this.tiles.delete(key);
      image.src = this.raster.replace('{z}', z).replace('{x}', x).replace('{y}', y);
    }
    return this.tiles.get(key);
  }

  drawVectorTile(g, tile, originX, originY) {
    const unit = TILE / tile.extent;
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
      const [colour, lineWidth] = STYLE[road.class] || STYLE.minor;
      g.strokeStyle = colour;
      g.lineWidth = lineWidth;
      g.beginPath();
      for (const line of road.lines) path(line);
      g.stroke();
    }
  }

  drawBase(width, height, ratio) {
    const base = this.base;
    const key = `${this.z}|${this.center}|${width}|${height}|${ratio}|${this.tilesVersion}`;
    if (key === this.baseKey) return;
    this.baseKey = key;
    base.width = Math.round(width * ratio);
    base.height = Math.round(height * ratio);
    const g = base.getContext('2d');
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.fillStyle = LAND;
    g.fillRect(0, 0, width, height);
    const z = this.z;
    const left = Math.floor(this.center[0] - width / 2 / TILE);
    const right = Math.floor(this.center[0] + width / 2 / TILE);
    const top = Math.floor(this.center[1] - height / 2 / TILE);
    const bottom = Math.floor(this.center[1] + height / 2 / TILE);
    g.lineCap = 'round';
    g.lineJoin = 'round';
    const last = 2 ** z - 1;
    for (let x = Math.max(0, left); x <= Math.min(last, right); x++) {
      for (let y = Math.max(0, top); y <= Math.min(last, bottom); y++) {
        // Whole pixels, so neighbouring tiles' sea meets without an anti-aliased seam.
        const originX = Math.round((x - this.center[0]) * TILE + width / 2);
        const originY = Math.round((y - this.center[1]) * TILE + height / 2);
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
    if (width === 0 || height === 0 || this.center === null) return;
    if (canvas.width !== Math.round(width * ratio)) canvas.width = Math.round(width * ratio);
    if (canvas.height !== Math.round(height * ratio)) canvas.height = Math.round(height * ratio);
    this.drawBase(width, height, ratio);
    const g = canvas.getContext('2d');
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.drawImage(this.base, 0, 0);
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
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
        const at = (along, across) => [sx + along * sin + across * cos, sy - along * cos + across * sin];
        g.moveTo(...at(size, 0));
        g.lineTo(...at(-size * 0.7, size * 0.75));
        g.lineTo(...at(-size * 0.35, 0));
        g.lineTo(...at(-size * 0.7, -size * 0.75));
        g.closePath();
      } else g.arc(sx, sy, marker.small ? 5 : marker.shape === 'rider' ? 10 : 8, 0, 2 * Math.PI);
      g.fill();
      g.stroke();
      if (marker.label) {
        g.font = '600 13px system-ui, sans-serif';
        g.lineWidth = 4;
        // Labels sit right of their marker, or left of it near the right edge.
        const labelWidth = g.measureText(marker.label).width;
        const lx = sx + 13 + labelWidth > width - 4 ? sx - 13 - labelWidth : sx + 13;
        g.strokeText(marker.label, lx, sy + 4);
        g.fillStyle = '#1d2127';
        g.fillText(marker.label, lx, sy + 4);
      }
    }
  }
}
