import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findSelfIntersection, allOnOneLine, type SweepWork } from '../src/geo/selfIntersection.js';
import { seededRandom } from './support/helpers.js';
import { combRing, randomRing, sawtoothRing, spiralRing, starRing } from '../bench/adversarialRings.js';

type P = readonly [number, number];

/**
 * The oracle: every pair of segments, solved with Cramer's rule on integer coordinates (exact
 * in doubles at these sizes). Non-neighbours meet when they share any point; neighbours when
 * they share more than their common vertex.
 */
function bruteForceMeetingPairs(ring: P[]): Array<[number, number]> {
  const n = ring.length;
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const neighbours = j === i + 1 || (i === 0 && j === n - 1);
      if (segmentsShare(ring[i], ring[(i + 1) % n], ring[j], ring[(j + 1) % n], neighbours)) pairs.push([i, j]);
    }
  }
  return pairs;
}

const cross = (ax: number, ay: number, bx: number, by: number) => ax * by - ay * bx;

function segmentsShare(a: P, b: P, c: P, d: P, neighbours: boolean): boolean {
  const rx = b[0] - a[0], ry = b[1] - a[1], sx = d[0] - c[0], sy = d[1] - c[1];
  const qpx = c[0] - a[0], qpy = c[1] - a[1];
  const denom = cross(rx, ry, sx, sy);
  if (denom !== 0) {
    if (neighbours) return false; // not parallel: they share exactly their common vertex
    // a + t r = c + u s, with t = cross(qp, s) / denom and u = cross(qp, r) / denom, both in [0, 1].
    const tn = cross(qpx, qpy, sx, sy), un = cross(qpx, qpy, rx, ry);
    const inUnit = (num: number) => (denom > 0 ? num >= 0 && num <= denom : num <= 0 && num >= denom);
    return inUnit(tn) && inUnit(un);
  }
  if (cross(qpx, qpy, rx, ry) !== 0) return false; // parallel, apart
  // Collinear: overlap of the parameter intervals along r.
  const rr = rx * rx + ry * ry;
  const t0 = qpx * rx + qpy * ry, t1 = t0 + (sx * rx + sy * ry);
  const lo = Math.max(0, Math.min(t0, t1)), hi = Math.min(rr, Math.max(t0, t1));
  return neighbours ? hi > lo : hi >= lo;
}

/** Open ring without repeated consecutive vertices (what checkRing hands over), on a small grid. */
function randomGridRing(random: () => number, n: number, size: number): P[] {
  const ring: P[] = [];
  while (ring.length < n) {
    const p: P = [Math.floor(random() * size), Math.floor(random() * size)];
    const last = ring[ring.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) ring.push(p);
  }
  if (ring[0][0] === ring[n - 1][0] && ring[0][1] === ring[n - 1][1]) ring.pop();
  return ring;
}

test('self-intersection: agrees with a brute-force O(n^2) checker on 20,000 random rings full of degenerate cases', () => {
  const random = seededRandom(8);
  let simple = 0, meeting = 0;
  for (let k = 0; k < 20_000; k++) {
    // Tiny grids force shared vertices, vertices on segments, collinear overlaps, vertical segments.
    const size = 2 + Math.floor(random() * 6);
    const ring = randomGridRing(random, 3 + Math.floor(random() * 10), size);
    if (ring.length < 3) continue;
    const expected = bruteForceMeetingPairs(ring);
    const found = findSelfIntersection(ring);
    if (expected.length === 0) {
      assert.equal(found, null, `ring ${JSON.stringify(ring)} is simple, sweep said ${JSON.stringify(found)}`);
      simple++;
    } else {
      assert.ok(found, `ring ${JSON.stringify(ring)} meets itself at ${JSON.stringify(expected)}, sweep found nothing`);
      assert.ok(expected.some(([i, j]) => i === found[0] && j === found[1]), `ring ${JSON.stringify(ring)}: sweep named ${found}, not a meeting pair (${JSON.stringify(expected)})`);
      meeting++;
    }
  }
  assert.ok(simple > 1000 && meeting > 1000, `both kinds exercised (simple ${simple}, meeting ${meeting})`);
});

test('self-intersection: simple polygons made by sorting random points by angle are accepted, any nudge across an edge is caught', () => {
  const random = seededRandom(88);
  for (let k = 0; k < 300; k++) {
    const n = 5 + Math.floor(random() * 60);
    const pts = Array.from({ length: n }, () => ({ a: random() * 2 * Math.PI, r: 10 + Math.floor(random() * 1000) }));
    pts.sort((p, q) => p.a - q.a);
    const ring: P[] = pts.map((p) => [Math.round(p.r * Math.cos(p.a)) * 4, Math.round(p.r * Math.sin(p.a)) * 4]);
    const expected = bruteForceMeetingPairs(ring);
    const found = findSelfIntersection(ring);
    assert.equal(found === null, expected.length === 0, `ring ${JSON.stringify(ring)}`);
    if (found) assert.ok(expected.some(([i, j]) => i === found[0] && j === found[1]));
  }
});

test('self-intersection: the adversarial rings cost O(n log n) tests (sawtooth, spiral, comb, star, random)', () => {
  const shapes = { sawtooth: sawtoothRing, spiral: spiralRing, comb: combRing, star: starRing };
  for (const [name, make] of Object.entries(shapes)) {
    const costs: number[] = [];
    for (const n of [1_000, 10_000, 100_000]) {
      const ring = make(n);
      assert.equal(ring.length, n);
      const work: SweepWork = { comparisons: 0 };
      assert.equal(findSelfIntersection(ring, work), null, `${name} ${n} is a simple polygon`);
      // A balanced status does at most ~2 log2(n) comparisons per event, 2n events.
      const bound = 4 * n * Math.log2(n) + 4 * n;
      assert.ok(work.comparisons <= bound, `${name} ${n}: ${work.comparisons} tests > ${bound.toFixed(0)}`);
      costs.push(work.comparisons);
    }
    // Ten times the vertices: at most ~13x the work (n log n), never ~100x (n^2).
    assert.ok(costs[2] / costs[1] < 14, `${name}: ${costs.join(' -> ')}`);
  }
  // A random ring crosses itself early: the pair named must really meet, found within the same bound.
  const random = randomRing(10_000, 3);
  const work: SweepWork = { comparisons: 0 };
  const found = findSelfIntersection(random, work);
  assert.ok(found, 'random 10,000-vertex ring crosses itself');
  const [i, j] = found;
  const n = random.length;
  assert.ok(segmentsShare(random[i], random[(i + 1) % n], random[j], random[(j + 1) % n], j === i + 1 || (i === 0 && j === n - 1)), 'the named pair really meets');
  assert.ok(work.comparisons <= 4 * n * Math.log2(n), `random: ${work.comparisons}`);
});

test('allOnOneLine: exact collinearity', () => {
  assert.equal(allOnOneLine([[0, 0], [1, 1], [3, 3], [-2, -2]]), true);
  assert.equal(allOnOneLine([[0, 0], [1, 1], [3, 3.0000000001]]), false);
  assert.equal(allOnOneLine([[0, 0], [1, 3], [2, 6], [1, 3]]), true);
  // Points on y = x are on one line whatever their binary form.
  assert.equal(allOnOneLine([[0.1, 0.1], [0.2, 0.2], [0.3, 0.3]]), true);
  // (0.1, 0.3) and (0.9, 2.7) as doubles are not quite on one line through the origin: a naive
  // float cross product rounds to 0 here, the exact predicate does not.
  assert.equal(0.1 * 2.7 - 0.3 * 0.9, 0);
  assert.equal(allOnOneLine([[0, 0], [0.1, 0.3], [0.9, 2.7]]), false);
});
