import { test } from 'node:test';
import assert from 'node:assert/strict';
import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import booleanIntersects from '@turf/boolean-intersects';
import { lineString, multiPolygon, point, polygon } from '@turf/helpers';
import { GeometryKernels } from '../src/geo/GeometryKernels.js';
import {
  PreparedPolygon, pointInPolygonReference, segmentTouchesPolygonReference, type Ring,
} from '../src/geo/PreparedPolygon.js';
import { DetourError } from '../src/index.js';
import { seededRandom } from './support/helpers.js';

const kernels = GeometryKernels.load();

/** A star-shaped ring of n vertices around (cx, cy): noisy radius, so edges go every way. */
function starRing(n: number, cx: number, cy: number, r: number, rand: () => number): number[][] {
  const ring: number[][] = [];
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n;
    const rr = r * (0.4 + 0.6 * rand());
    ring.push([cx + rr * Math.cos(a), cy + rr * Math.sin(a)]);
  }
  ring.push([...ring[0]]);
  return ring;
}

function randomPoints(count: number, minX: number, minY: number, maxX: number, maxY: number, rand: () => number) {
  const pts = new Float64Array(count * 2);
  for (let i = 0; i < count; i++) {
    pts[2 * i] = minX + rand() * (maxX - minX);
    pts[2 * i + 1] = minY + rand() * (maxY - minY);
  }
  return pts;
}

/** WASM, JS reference and turf must agree on every point. */
function agreeOnPoints(rings: number[][][], turfShape: ReturnType<typeof polygon> | ReturnType<typeof multiPolygon>, pts: Float64Array, label: string) {
  const prepared = new PreparedPolygon(rings as Ring[]);
  const wasm = kernels.withPolygon(prepared, (b) => b.classifyPoints(pts));
  let inside = 0;
  for (let i = 0; i < pts.length / 2; i++) {
    const x = pts[2 * i], y = pts[2 * i + 1];
    const ref = pointInPolygonReference(prepared, x, y);
    const turf = booleanPointInPolygon(point([x, y]), turfShape as Parameters<typeof booleanPointInPolygon>[1]);
    if (wasm[i] !== Number(ref) || ref !== turf) {
      assert.fail(`${label}: point (${x}, ${y}): wasm ${wasm[i]}, reference ${ref}, turf ${turf}`);
    }
    inside += wasm[i];
  }
  return inside;
}

test('random star polygons of 32, 1,000 and 10,000 vertices: WASM = JS reference = turf (220,000 points)', () => {
  const rand = seededRandom(5);
  // Fewer points on the largest ring: turf and the reference test every edge for each point.
  for (const [n, count] of [[32, 100_000], [1000, 100_000], [10000, 20_000]]) {
    const ring = starRing(n, 11.97, 57.7, 0.05, rand);
    const pts = randomPoints(count, 11.90, 57.63, 12.04, 57.77, rand);
    const inside = agreeOnPoints([ring], polygon([ring]), pts, `${n} vertices`);
    assert.ok(inside > count / 10 && inside < count * 0.9, `${n}: ${inside} inside is not a mix`);
  }
});

test('holes and many rings (a multipolygon): even-odd matches turf', () => {
  const rand = seededRandom(8);
  const parts: number[][][][] = [];
  for (let i = 0; i < 20; i++) {
    const cx = (i % 5) * 10, cy = Math.floor(i / 5) * 10;
    const outer = [[cx, cy], [cx + 8, cy], [cx + 8, cy + 8], [cx, cy + 8], [cx, cy]];
    const hole = starRing(12, cx + 4, cy + 4, 2, rand).reverse();
    parts.push([outer, hole]);
  }
  const pts = randomPoints(50_000, -2, -2, 52, 42, rand);
  agreeOnPoints(parts.flat(), multiPolygon(parts), pts, 'multipolygon with holes');
});

test('degenerate cases: vertices, points on edges, collinear runs, duplicate vertices, thin and huge polygons', () => {
  // Collinear runs and a duplicate vertex on integer coordinates (exact arithmetic).
  const comb = [[0, 0], [2, 0], [4, 0], [4, 0], [6, 0], [6, 3], [5, 3], [5, 1], [4, 1], [4, 3], [2, 3], [2, 1], [1, 1], [1, 3], [0, 3], [0, 0]];
  const turfComb = polygon([comb.filter((p, i) => i === 0 || p[0] !== comb[i - 1][0] || p[1] !== comb[i - 1][1])]);
  const special: number[] = [];
  for (let x = -1; x <= 7; x += 0.5) for (let y = -1; y <= 4; y += 0.5) special.push(x, y);
  agreeOnPoints([comb], turfComb, Float64Array.from(special), 'comb');
  const prepared = new PreparedPolygon([comb as Ring]);
  const onBoundary = kernels.withPolygon(prepared, (b) => b.classifyPoints(Float64Array.from([0, 0, 3, 0, 6, 1.5, 4.5, 1, 5, 2, 1.5, 1])));
  assert.deepEqual(Array.from(onBoundary), [1, 1, 1, 1, 1, 1], 'vertices and edge points are inside');
  // A very thin sliver and a continent-sized polygon.
  const sliver = [[0, 0], [10, 0.000001], [10, 0.000002], [0, 0]];
  const rand = seededRandom(9);
  agreeOnPoints([sliver], polygon([sliver]), randomPoints(20_000, -1, -0.00001, 11, 0.00001, rand), 'sliver');
  const huge = [[-170, -80], [170, -80], [170, 80], [-170, 80], [-170, -80]];
  agreeOnPoints([huge], polygon([huge]), randomPoints(20_000, -180, -90, 180, 90, rand), 'huge');
  // Outside the bbox, NaN: outside, no crash.
  const out = kernels.withPolygon(prepared, (b) => b.classifyPoints(Float64Array.from([NaN, 1, 1, NaN, 100, 100])));
  assert.deepEqual(Array.from(out), [0, 0, 0]);
});

test('segments: WASM = JS reference = turf booleanIntersects, on random and degenerate segments', () => {
  const rand = seededRandom(12);
  for (const n of [32, 1000]) {
    const ring = starRing(n, 0, 0, 1, rand);
    const hole = starRing(16, 0, 0, 0.2, rand).reverse();
    const prepared = new PreparedPolygon([ring, hole] as Ring[]);
    const shape = polygon([ring, hole]);
    const count = 5000;
    const segs = new Float64Array(count * 4);
    for (let i = 0; i < count; i++) {
      const x = (rand() - 0.5) * 2.6, y = (rand() - 0.5) * 2.6;
      const len = rand() < 0.5 ? 0.05 : 1;
      segs.set([x, y, x + (rand() - 0.5) * len, y + (rand() - 0.5) * len], 4 * i);
    }
    const wasm = kernels.withPolygon(prepared, (b) => b.classifySegments(segs));
    let hits = 0;
    for (let i = 0; i < count; i++) {
      const [ax, ay, bx, by] = segs.subarray(4 * i, 4 * i + 4);
      const ref = segmentTouchesPolygonReference(prepared, ax, ay, bx, by);
      const turf = booleanIntersects(lineString([[ax, ay], [bx, by]]), shape);
      if (wasm[i] !== Number(ref) || ref !== turf) assert.fail(`${n}: segment ${i} [${ax},${ay} -> ${bx},${by}]: wasm ${wasm[i]}, reference ${ref}, turf ${turf}`);
      hits += wasm[i];
    }
    assert.ok(hits > 500 && hits < 4500, `${hits} hits is not a mix`);
  }
  // Touching only at a vertex, lying along an edge, fully inside a hole, crossing two edges.
  const sq = new PreparedPolygon([[[0, 0], [4, 0], [4, 4], [0, 4]], [[1, 1], [3, 1], [3, 3], [1, 3]]]);
  const segs = Float64Array.from([4, 4, 6, 6, /* vertex */ 0, -1, 0, 5, /* along edge */ 1.5, 1.5, 2.5, 2.5, /* in hole */ -1, 2, 5, 2, /* across */ 5, 5, 6, 6]);
  assert.deepEqual(Array.from(kernels.withPolygon(sq, (b) => b.classifySegments(segs))), [1, 1, 0, 1, 0]);
});

test('polylines: touching when any segment touches', () => {
  const sq = new PreparedPolygon([[[0, 0], [4, 0], [4, 4], [0, 4]]]);
  const pts = Float64Array.from([-2, -2, -1, -1, /* line 0 out */ -1, 2, -0.5, 2, 2, 2, /* line 1 enters */ 2, 2 /* line 2: a point inside */]);
  const start = Int32Array.from([0, 2, 5, 6]);
  assert.deepEqual(Array.from(kernels.withPolygon(sq, (b) => b.classifyPolylines(pts, start))), [0, 1, 1]);
});

test('a broken module or missing export is a clear WASM_UNAVAILABLE error', () => {
  assert.throws(() => GeometryKernels.fromBytes(new Uint8Array([0, 97, 115, 109, 9, 9])), (e: DetourError) =>
    e.code === 'WASM_UNAVAILABLE' && /npm run build/.test(e.message));
  // A valid but empty module has none of the exports.
  assert.throws(() => GeometryKernels.fromBytes(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])), (e: DetourError) =>
    e.code === 'WASM_UNAVAILABLE' && /missing/.test(e.message));
});

test('lengthInside matches dense sampling with turf point-in-polygon on random lines and a polygon with a hole', async () => {
  const { lengthInside } = await import('../src/geo/lengthInside.js');
  const { haversineMetres } = await import('../src/index.js');
  const rand = seededRandom(21);
  const outer = starRing(40, 11.97, 57.7, 0.01, rand);
  const hole = starRing(12, 11.97, 57.7, 0.003, rand).reverse();
  const prepared = new PreparedPolygon([outer, hole] as Ring[]);
  const shape = polygon([outer, hole]);
  for (let l = 0; l < 20; l++) {
    const line = new Float64Array(12);
    for (let i = 0; i < 6; i++) { line[2 * i] = 11.955 + rand() * 0.03; line[2 * i + 1] = 57.69 + rand() * 0.02; }
    let sampled = 0;
    for (let i = 0; i + 3 < line.length; i += 2) {
      const steps = 2000;
      const seg = haversineMetres(line[i + 1], line[i], line[i + 3], line[i + 2]);
      for (let s = 0; s < steps; s++) {
        const t = (s + 0.5) / steps;
        if (booleanPointInPolygon(point([line[i] + t * (line[i + 2] - line[i]), line[i + 1] + t * (line[i + 3] - line[i + 1])]), shape)) sampled += seg / steps;
      }
    }
    const exact = lengthInside(prepared, line);
    assert.ok(Math.abs(exact - sampled) <= 0.002 * 6000 + 1, `line ${l}: ${exact} m vs sampled ${sampled} m`);
  }
});

test('adversarial polygons (sawtooth, spiral, comb, star of 10,000 vertices): the index stays O(vertices) and WASM = JS reference = turf', async () => {
  const { ADVERSARIAL_RINGS } = await import('../bench/adversarialRings.js');
  const { INDEX_ENTRIES_PER_VERTEX } = await import('../src/geo/PreparedPolygon.js');
  const rand = seededRandom(12);
  for (const [name, make] of Object.entries(ADVERSARIAL_RINGS)) {
    const ring = make(10_000).map(([x, y]) => [x, y]);
    const prepared = new PreparedPolygon([ring]);
    // The old rule listed a sawtooth's 10,000 edges in each of 5,000 rows (50 M entries).
    assert.ok(prepared.rowEdges.length <= INDEX_ENTRIES_PER_VERTEX * 10_000 + 4096, `${name}: ${prepared.rowEdges.length} index entries`);
    const pts = randomPoints(5_000, prepared.minX - 0.001, prepared.minY - 0.001, prepared.maxX + 0.001, prepared.maxY + 0.001, rand);
    const inside = agreeOnPoints([ring], polygon([[...ring, ring[0]]]), pts, name);
    assert.ok(inside > 0 && inside < 5_000, `${name}: ${inside} inside`);
    // Segments too: the kernel against the plain reference.
    const segs = new Float64Array(4 * 2_000);
    for (let i = 0; i < segs.length; i += 2) {
      segs[i] = prepared.minX + rand() * (prepared.maxX - prepared.minX);
      segs[i + 1] = prepared.minY + rand() * (prepared.maxY - prepared.minY);
    }
    const wasm = kernels.withPolygon(prepared, (b) => b.classifySegments(segs));
    for (let i = 0; i < 2_000; i++) {
      const ref = segmentTouchesPolygonReference(prepared, segs[4 * i], segs[4 * i + 1], segs[4 * i + 2], segs[4 * i + 3]);
      assert.equal(wasm[i], Number(ref), `${name}: segment ${i}`);
    }
  }
});

test('lengthInside (one point test a segment, parity for the rest) = the per-piece reference, on adversarial polygons and grid-aligned degenerate lines', async () => {
  const { lengthInside, lengthInsideReference } = await import('../src/geo/lengthInside.js');
  const { ADVERSARIAL_RINGS } = await import('../bench/adversarialRings.js');
  const rand = seededRandom(21);
  const shapes: Array<[string, number[][][]]> = Object.entries(ADVERSARIAL_RINGS).map(([name, make]) => [name, [make(1_000)]]);
  // Grid polygons with a hole (steps of 2^-10 degrees, exact in binary): lines through vertices and along edges.
  const unit = 2 ** -10;
  shapes.push(['grid with hole', [[[0, 0], [8, 0], [8, 8], [4, 4], [0, 8]], [[1, 1], [3, 1], [3, 2], [1, 2]]].map((r) => r.map(([x, y]) => [x * unit, y * unit]))]);
  for (const [name, rings] of shapes) {
    const prepared = new PreparedPolygon(rings as Ring[]);
    const grid = name === 'grid with hole';
    for (let k = 0; k < 200; k++) {
      const n = 2 + Math.floor(rand() * 6);
      const line = new Float64Array(2 * n);
      for (let i = 0; i < n; i++) {
        line[2 * i] = grid ? (Math.floor(rand() * 10) - 1) * unit : prepared.minX + (rand() * 1.2 - 0.1) * (prepared.maxX - prepared.minX);
        line[2 * i + 1] = grid ? (Math.floor(rand() * 10) - 1) * unit : prepared.minY + (rand() * 1.2 - 0.1) * (prepared.maxY - prepared.minY);
      }
      const fast = lengthInside(prepared, line), reference = lengthInsideReference(prepared, line);
      // Haversine is not additive along a line in degrees: the reference's extra cuts (at parallel edges) move it by far less than a millimetre.
      assert.ok(Math.abs(fast - reference) <= 1e-3, `${name}: line ${k}: ${fast} vs ${reference} (${Array.from(line).join(',')})`);
    }
  }
});
