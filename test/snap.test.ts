import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { haversineMetres, importGeoJson, SnapIndex, DetourError } from '../src/index.js';
import { GOTHENBURG_GEOJSON, seededRandom } from './support/helpers.js';

const graph = importGeoJson(JSON.parse(readFileSync(GOTHENBURG_GEOJSON, 'utf8')));
const index = new SnapIndex(graph);

/** Brute force: the distance to the nearest segment, sampling each segment finely. */
function bruteNearest(lat: number, lon: number): number {
  let best = Infinity;
  for (let r = 0; r < graph.roadCount; r++) {
    for (let i = 0; i + 1 < graph.roadPointCount(r); i++) {
      const steps = 64;
      const aLat = graph.roadPointLat(r, i), aLon = graph.roadPointLon(r, i);
      const bLat = graph.roadPointLat(r, i + 1), bLon = graph.roadPointLon(r, i + 1);
      for (let k = 0; k <= steps; k++) {
        const t = k / steps;
        const pLat = aLat + t * (bLat - aLat);
        const pLon = aLon + t * (bLon - aLon);
        best = Math.min(best, haversineMetres(lat, lon, pLat, pLon));
      }
    }
  }
  return best;
}

test('snaps to the nearest segment (projection, not nearest node), matching brute force', () => {
  const rand = seededRandom(3);
  for (let i = 0; i < 40; i++) {
    const k = Math.floor(rand() * graph.shapeLat.length);
    const lat = graph.shapeLat[k] + (rand() - 0.5) * 0.004;
    const lon = graph.shapeLon[k] + (rand() - 0.5) * 0.008;
    const snap = index.snap(lat, lon);
    const brute = bruteNearest(lat, lon);
    // Sampling at 1/64 of a segment overestimates by a little; the projection may not be beaten.
    assert.ok(snap.distance <= brute + 1e-6, `point ${i}: snapped ${snap.distance} m, brute force ${brute} m`);
    assert.ok(snap.distance >= brute - 0.5, `point ${i}: snapped ${snap.distance} m, brute force ${brute} m`);
    assert.ok(Math.abs(haversineMetres(lat, lon, snap.latitude, snap.longitude) - snap.distance) < 1e-6);
    assert.ok(snap.offset >= 0 && snap.offset <= graph.roadLength[snap.road]);
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
