/**
 * Road vector tiles: decoded with @mapbox/vector-tile, every road a brute force finds crossing the
 * tile is there (by feature id), nothing from outside it, and bad tile addresses are 400s.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader as Pbf } from 'pbf';
import { DEFAULT_GRAPH_PATH, HIGHWAY_CLASSES, loadGraph } from '../src/index.js';
import { MAX_TILE_ZOOM, MIN_TILE_ZOOM } from '../src/service/roadTiles.js';
import type { Store } from '../src/store/Store.js';
import { http, listen, sqliteKind, type TestService } from './support/service.js';

const city = loadGraph(DEFAULT_GRAPH_PATH);
let store: Store;
let svc: TestService;

before(async () => {
  store = await sqliteKind().open();
  svc = await listen(city, store);
});
after(async () => {
  await svc.close();
  await store.close();
});

const tileX = (lon: number, z: number) => Math.floor(((lon + 180) / 360) * 2 ** z);
const tileY = (lat: number, z: number) => {
  const r = (lat * Math.PI) / 180;
  return Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * 2 ** z);
};
const lonOf = (x: number, z: number) => (x / 2 ** z) * 360 - 180;
const latOf = (y: number, z: number) => (180 / Math.PI) * Math.atan(Math.sinh(Math.PI - (2 * Math.PI * y) / 2 ** z));

/** Whether segment (x1,y1)-(x2,y2) meets the box (Liang-Barsky clipping). */
function segmentMeetsBox(x1: number, y1: number, x2: number, y2: number, w: number, s: number, e: number, n: number): boolean {
  let t0 = 0, t1 = 1;
  const dx = x2 - x1, dy = y2 - y1;
  for (const [p, q] of [[-dx, x1 - w], [dx, e - x1], [-dy, y1 - s], [dy, n - y1]]) {
    if (p === 0) { if (q < 0) return false; continue; }
    const t = q / p;
    if (p < 0) { if (t > t1) return false; if (t > t0) t0 = t; } else { if (t < t0) return false; if (t < t1) t1 = t; }
  }
  return true;
}

/** Roads (ids) whose geometry meets the box, of the classes shown at any zoom >= 13 (all). */
function roadsMeeting(w: number, s: number, e: number, n: number): Set<number> {
  const out = new Set<number>();
  for (let r = 0; r < city.roadCount; r++) {
    const k = city.roadPointCount(r);
    for (let i = 0; i + 1 < k; i++) {
      if (segmentMeetsBox(city.roadPointLon(r, i), city.roadPointLat(r, i), city.roadPointLon(r, i + 1), city.roadPointLat(r, i + 1), w, s, e, n)) {
        out.add(r);
        break;
      }
    }
  }
  return out;
}

test('a zoom-15 tile holds every road crossing it, and none far outside', async () => {
  const z = 15, x = tileX(11.968, z), y = tileY(57.705, z);
  const res = await fetch(`${svc.url}/tiles/${z}/${x}/${y}.pbf`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/vnd.mapbox-vector-tile');
  const tile = new VectorTile(new Pbf(new Uint8Array(await res.arrayBuffer())));
  const layer = tile.layers.roads;
  assert.ok(layer && layer.length > 10, `${layer?.length} features`);
  const ids = new Set<number>();
  for (let i = 0; i < layer.length; i++) {
    const f = layer.feature(i);
    ids.add(Number(f.id));
    assert.ok(HIGHWAY_CLASSES.includes(String(f.properties.class)));
    assert.equal(f.properties.class, HIGHWAY_CLASSES[city.roadClass[Number(f.id)]]);
  }
  const w = lonOf(x, z), e = lonOf(x + 1, z), n = latOf(y, z), s = latOf(y + 1, z);
  const inside = roadsMeeting(w, s, e, n);
  for (const r of inside) assert.ok(ids.has(r), `road ${r} crosses the tile but is missing`);
  // Anything else lies in the tile's buffer (64/4096 of a tile) at most.
  const m = 0.02;
  const near = roadsMeeting(w - m * (e - w), s - m * (n - s), e + m * (e - w), n + m * (n - s));
  for (const r of ids) assert.ok(near.has(r), `road ${r} is in the tile but nowhere near it`);
});

test('low zooms show only the major roads; empty tiles are 204; bad addresses are 400', async () => {
  const z = 10, x = tileX(11.968, z), y = tileY(57.705, z);
  const res = await fetch(`${svc.url}/tiles/${z}/${x}/${y}.pbf`);
  assert.equal(res.status, 200);
  const layer = new VectorTile(new Pbf(new Uint8Array(await res.arrayBuffer()))).layers.roads;
  const classes = new Set(Array.from({ length: layer.length }, (_, i) => String(layer.feature(i).properties.class)));
  assert.ok(!classes.has('residential') && !classes.has('service'), [...classes].join());
  // Every major road crossing it is there (the low-zoom index holds only the classes shown).
  const ids = new Set(Array.from({ length: layer.length }, (_, i) => Number(layer.feature(i).id)));
  const major = new Set(['motorway', 'trunk', 'primary', 'secondary']);
  const crossing = [...roadsMeeting(lonOf(x, z), latOf(y + 1, z), lonOf(x + 1, z), latOf(y, z))].filter((r) => major.has(HIGHWAY_CLASSES[city.roadClass[r]]));
  assert.ok(crossing.length > 20, `${crossing.length} major roads`);
  for (const r of crossing) assert.ok(ids.has(r), `major road ${r} missing at zoom ${z}`);
  assert.equal((await fetch(`${svc.url}/tiles/12/0/0.pbf`)).status, 204);
  for (const path of [`${MIN_TILE_ZOOM - 1}/0/0`, `${MAX_TILE_ZOOM + 1}/0/0`, '12/4096/0', '12/0/-1', '12/x/0', '1e1/0/0']) {
    const bad = await http(`${svc.url}/tiles/${path}.pbf`);
    assert.equal(bad.status, 400, `${path}: ${bad.status} ${bad.text}`);
    assert.ok(bad.body.code, bad.text);
  }
  const config = await http(`${svc.url}/map/config`);
  assert.equal(config.status, 200);
  const [w, s, e, n] = config.body.bounds;
  assert.ok(w < 11.968 && e > 11.968 && s < 57.705 && n > 57.705);
  // Exactly the nodes' extremes, as a scan of every node's degrees gives them.
  const lons = Array.from({ length: city.nodeCount }, (_, v) => city.nodeLongitude(v)), lats = Array.from({ length: city.nodeCount }, (_, v) => city.nodeLatitude(v));
  assert.deepEqual([w, s, e, n], [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)]);
  assert.equal(config.body.basemap, null);
});

test('the map page is served at /', async () => {
  const res = await fetch(`${svc.url}/`);
  assert.equal(res.status, 200);
  assert.match(await res.text(), /<main id="map"/);
  // Read to the end: an unread body keeps the connection busy and close() waits out the keep-alive.
  const script = await fetch(`${svc.url}/map.js`);
  assert.equal(script.status, 200);
  assert.ok((await script.text()).length > 0);
});

test('a basemap from the configuration: in /map/config and allowed by the page\'s content security policy', async () => {
  const { configFromEnv } = await import('../src/service/startService.js');
  const url = 'https://tile.example.org/{z}/{x}/{y}.png';
  const basemap = configFromEnv({ DETOUR_BASEMAP_URL: url, DETOUR_BASEMAP_ATTRIBUTION: '© Example' }).basemap;
  assert.deepEqual(basemap, { url, attribution: '© Example' });
  assert.throws(() => configFromEnv({ DETOUR_BASEMAP_URL: 'https://tile.example.org/tile.png', DETOUR_BASEMAP_ATTRIBUTION: 'x' }), /\{z\}, \{x\} and \{y\}/);
  assert.throws(() => configFromEnv({ DETOUR_BASEMAP_URL: 'file:///{z}/{x}/{y}', DETOUR_BASEMAP_ATTRIBUTION: 'x' }), /http\(s\)/);
  assert.throws(() => configFromEnv({ DETOUR_BASEMAP_URL: url }), /ATTRIBUTION/);
  const withBasemap = await listen(city, store, { basemap });
  try {
    const res = await http(`${withBasemap.url}/map/config`);
    assert.deepEqual(res.body.basemap, basemap);
    assert.match(res.headers.get('content-security-policy') ?? '', /img-src[^;]*https:\/\/tile\.example\.org/);
  } finally {
    await withBasemap.close();
  }
});
