import { test } from 'node:test';
import { fromE7 } from '../src/geo/coordinates.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { haversineMetres, importGeoJson, SnapIndex, DetourError } from '../src/index.js';
import { GOTHENBURG_GEOJSON, seededRandom } from './support/helpers.js';

const graph = importGeoJson(JSON.parse(readFileSync(GOTHENBURG_GEOJSON, 'utf8')));
const index = new SnapIndex(graph);

/**
 * Brute force: the distance to the nearest segment, sampling each segment at most 1 m apart (so it
 * overestimates by at most 0.5 m). Segments are sampled nearest box first, and those whose box is
 * farther than the best sample so far are skipped: every sample lies in its segment's latitude and
 * longitude box, and 99 % of the distance to the box's nearest point bounds them all from below
 * (the 1 % covers the sphere's curvature across a city's boxes).
 */
function bruteNearest(lat: number, lon: number): number {
  const near: { r: number; i: number; bound: number }[] = [];
  for (let r = 0; r < graph.roadCount; r++) {
    for (let i = 0; i + 1 < graph.roadPointCount(r); i++) {
      const aLat = graph.roadPointLat(r, i), aLon = graph.roadPointLon(r, i);
      const bLat = graph.roadPointLat(r, i + 1), bLon = graph.roadPointLon(r, i + 1);
      const boxLat = Math.min(Math.max(lat, Math.min(aLat, bLat)), Math.max(aLat, bLat));
      const boxLon = Math.min(Math.max(lon, Math.min(aLon, bLon)), Math.max(aLon, bLon));
      near.push({ r, i, bound: 0.99 * haversineMetres(lat, lon, boxLat, boxLon) });
    }
  }
  near.sort((a, b) => a.bound - b.bound);
  let best = Infinity;
  for (const { r, i, bound } of near) {
    if (bound > best) break;
    const aLat = graph.roadPointLat(r, i), aLon = graph.roadPointLon(r, i);
    const bLat = graph.roadPointLat(r, i + 1), bLon = graph.roadPointLon(r, i + 1);
    const steps = Math.max(64, Math.ceil(haversineMetres(aLat, aLon, bLat, bLon)));
    for (let k = 0; k <= steps; k++) {
      const t = k / steps;
      const pLat = aLat + t * (bLat - aLat);
      const pLon = aLon + t * (bLon - aLon);
      best = Math.min(best, haversineMetres(lat, lon, pLat, pLon));
    }
  }
  return best;
}

test('snaps to the nearest segment (projection, not nearest node), matching brute force', () => {
  const rand = seededRandom(3);
  for (let i = 0; i < 40; i++) {
    const k = Math.floor(rand() * graph.shapeLatE7.length);
    const lat = fromE7(graph.shapeLatE7[k]) + (rand() - 0.5) * 0.004;
    const lon = fromE7(graph.shapeLonE7[k]) + (rand() - 0.5) * 0.008;
    const snap = index.snap(lat, lon);
    const brute = bruteNearest(lat, lon);
    // Sampling overestimates by at most half a step (0.5 m); the projection may not be beaten.
    assert.ok(snap.distance <= brute + 1e-6, `point ${i}: snapped ${snap.distance} m, brute force ${brute} m`);
    assert.ok(snap.distance >= brute - 0.5, `point ${i}: snapped ${snap.distance} m, brute force ${brute} m`);
    assert.ok(Math.abs(haversineMetres(lat, lon, snap.latitude, snap.longitude) - snap.distance) < 1e-6);
    assert.ok(snap.offset >= 0 && snap.offset <= graph.roadMetres(snap.road));
  }
});

test('a point mid-segment snaps between the segment ends, not to a node', () => {
  // Pick a long segment and a point just beside its middle.
  let best = { r: 0, i: 0, len: 0 };
  for (let r = 0; r < graph.roadCount; r++) {
    for (let i = 0; i + 1 < graph.roadPointCount(r); i++) {
      const len = haversineMetres(graph.roadPointLat(r, i), graph.roadPointLon(r, i), graph.roadPointLat(r, i + 1), graph.roadPointLon(r, i + 1));
      if (len > best.len && len < 2000) best = { r, i, len };
    }
  }
  const mLat = (graph.roadPointLat(best.r, best.i) + graph.roadPointLat(best.r, best.i + 1)) / 2;
  const mLon = (graph.roadPointLon(best.r, best.i) + graph.roadPointLon(best.r, best.i + 1)) / 2;
  const snap = index.snap(mLat + 0.00005, mLon);
  assert.ok(snap.t > 0.2 && snap.t < 0.8, `t = ${snap.t}`);
  assert.ok(snap.distance < 10);
});

test('a point farther than maxDistance from any road is POINT_NOT_ROUTABLE naming it', () => {
  assert.throws(() => index.snap(0, 0, { label: 'points[1]' }), (err: DetourError) =>
    err.code === 'POINT_NOT_ROUTABLE' && /points\[1\]/.test(err.message) && /1000 m/.test(err.message));
  // In the sea west of Gothenburg: roads exist within 5 km but not within 200 m.
  assert.throws(() => index.snap(57.69, 11.70, { maxDistance: 200 }), (err: DetourError) => err.code === 'POINT_NOT_ROUTABLE');
});

test('invalid coordinates are INVALID_COORDINATE, never a crash', () => {
  for (const [lat, lon] of [[NaN, 11.9], [57.7, NaN], [91, 0], [0, -181], [Infinity, 0]]) {
    assert.throws(() => index.snap(lat, lon, { label: 'p' }), (err: DetourError) => err.code === 'INVALID_COORDINATE' && /p: /.test(err.message));
  }
  assert.throws(() => index.snap('57' as unknown as number, 11), (err: DetourError) => err.code === 'INVALID_COORDINATE');
});

test('extract edges: a first stop on a road that only drives into the map stays on it, a last stop on a road only reached from it stays; the others move (checked by plain Dijkstra)', async () => {
  const { openGraph, Router } = await import('../src/index.js');
  const { stronglyConnectedComponents } = await import('../src/graph/components.js');
  const { sourceEndpoints, targetEndpoints } = await import('../src/routing/endpoints.js');
  const { dijkstra, sharedExtract } = await import('./support/helpers.js');
  const seen = { leavesOnly: 0, arrivesOnly: 0 };
  for (const name of ['monaco.osm.pbf', 'andorra.osm.pbf', 'campo-grande.osm.gz']) {
    const data = sharedExtract(name);
    if (data.skip) continue;
    const g = await openGraph(data.path);
    const router = new Router(g);
    const { component, size } = stronglyConnectedComponents(g);
    const main = size.indexOf(Math.max(...size));
    const hub = component.indexOf(main);
    for (let r = 0; r < g.roadCount; r++) {
      if (router.snapIndex.inBigComponent(r) || g.roadPointCount(r) < 2) continue;
      const point = { latitude: (g.roadPointLat(r, 0) + g.roadPointLat(r, 1)) / 2, longitude: (g.roadPointLon(r, 0) + g.roadPointLon(r, 1)) / 2 };
      const nearest = router.snapIndex.snap(point.latitude, point.longitude);
      if (nearest.road !== r) continue; // another road is as near: not this road's test
      const leaves = dijkstra(g, sourceEndpoints(g, nearest, 'distance'), [{ node: hub, cost: 0 }], 'distance') < Infinity;
      const arrives = dijkstra(g, [{ node: hub, cost: 0 }], targetEndpoints(g, nearest, 'distance'), 'distance') < Infinity;
      // A stop moves only where some road in range serves its role; else it stays (and its route fails).
      const movable = (role: 'first' | 'last' | 'via') => router.snapIndex.snapChoice(point.latitude, point.longitude, { role }).big !== undefined;
      if (movable('first') || leaves) assert.equal(router.snapStop(point, 'p', 'first').road === r, leaves, `${name} road ${r} as a first stop`);
      if (movable('last') || arrives) assert.equal(router.snapStop(point, 'p', 'last').road === r, arrives, `${name} road ${r} as a last stop`);
      if (movable('via') || (leaves && arrives)) assert.equal(router.snapStop(point, 'p', 'via').road === r, leaves && arrives, `${name} road ${r} as a via`);
      if (leaves && !arrives) seen.leavesOnly++;
      if (arrives && !leaves) seen.arrivesOnly++;
    }
  }
  if (seen.leavesOnly + seen.arrivesOnly === 0 && !sharedExtract('monaco.osm.pbf').skip) assert.fail('the extracts have roads that only enter or only leave the map');
  console.log(`# roads only entering the main network: ${seen.leavesOnly}; only leaving it: ${seen.arrivesOnly}`);
});
