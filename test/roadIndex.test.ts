import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { calculateZone, importGeoJson, ZoneCalculator, zoneFromGeoJson } from '../src/index.js';
import { RoadIndex } from '../src/zones/RoadIndex.js';
import { isSharedGraph, sharedGraph, sharedGraphArrays } from '../src/graph/sharedGraph.js';
import { ARRAY_KEYS, RoadGraph } from '../src/graph/RoadGraph.js';
import { ROADS_PER_BOX, roadBoxes } from '../src/graph/roadBoxes.js';
import { importedGothenburg, seededRandom } from './support/helpers.js';

/** A fresh graph of the imported city: its arrays (never changed here), no indexes, not on shared memory. */
const gothenburg = (): RoadGraph => new RoadGraph(importedGothenburg().arrays(), importedGothenburg().meta);

/** Each road's exact (Float64) bounding box by a scan over its polyline: the oracle. */
function exactBoxes(graph: RoadGraph): Float64Array {
  const boxes = new Float64Array(graph.roadCount * 4);
  for (let r = 0; r < graph.roadCount; r++) {
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (let k = 0; k < graph.roadPointCount(r); k++) {
      const x = graph.roadPointLon(r, k), y = graph.roadPointLat(r, k);
      minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    }
    boxes.set([minX, minY, maxX, maxY], 4 * r);
  }
  return boxes;
}

describe('RoadIndex: packed flatbush over road boxes', () => {
  const graph = gothenburg();
  const boxes = exactBoxes(graph);
  const index = new RoadIndex(graph);

  test('finds every road whose exact box meets the query box, and nothing farther than float32 rounding', () => {
    const rand = seededRandom(91);
    let found = 0;
    for (let q = 0; q < 300; q++) {
      // Query boxes from a point up to ~3 km, some snapped exactly onto a road box's edge.
      const r = Math.floor(rand() * graph.roadCount);
      const size = q % 3 === 0 ? 0 : rand() * 0.05;
      const x0 = q % 5 === 0 ? boxes[4 * r + 2] : boxes[4 * r] + (rand() - 0.5) * 0.02;
      const y0 = q % 5 === 0 ? boxes[4 * r + 3] : boxes[4 * r + 1] + (rand() - 0.5) * 0.02;
      const [minX, minY, maxX, maxY] = [x0, y0, x0 + size, y0 + size / 2];
      const got = new Set(index.roadsInBox(minX, minY, maxX, maxY));
      for (let s = 0; s < graph.roadCount; s++) {
        const meets = boxes[4 * s] <= maxX && boxes[4 * s + 2] >= minX && boxes[4 * s + 1] <= maxY && boxes[4 * s + 3] >= minY;
        if (meets) assert.ok(got.has(s), `query ${q}: road ${s} meets the box but was not found`);
      }
      const eps = 1e-5; // float32 steps near 57° / 12° are ~4e-6 / ~1e-6 degrees
      for (const s of got) {
        const near = boxes[4 * s] <= maxX + eps && boxes[4 * s + 2] >= minX - eps && boxes[4 * s + 1] <= maxY + eps && boxes[4 * s + 3] >= minY - eps;
        assert.ok(near, `query ${q}: road ${s} found but its box is far from the query`);
      }
      found += got.size;
    }
    assert.ok(found > 1000, `queries should meet many roads (met ${found})`);
  });

  test('is a few bytes per road (a box per eight roads), on a SharedArrayBuffer', () => {
    assert.ok(index.data instanceof SharedArrayBuffer);
    assert.ok(index.byteSize() / graph.roadCount < 4, `${(index.byteSize() / graph.roadCount).toFixed(1)} B/road`);
  });

  test('an index adopted from another index\'s buffer answers the same; a buffer of another graph is refused', () => {
    const adopted = new RoadIndex(graph, index.data);
    const rand = seededRandom(5);
    for (let q = 0; q < 50; q++) {
      const x = 11.9 + rand() * 0.15, y = 57.65 + rand() * 0.1;
      assert.deepEqual(adopted.roadsInBox(x, y, x + 0.01, y + 0.01), index.roadsInBox(x, y, x + 0.01, y + 0.01));
    }
    const other = importGeoJson({
      type: 'FeatureCollection',
      features: [{ type: 'Feature', properties: { highway: 'residential' }, geometry: { type: 'LineString', coordinates: [[11.9, 57.7], [11.91, 57.7]] } }],
    });
    assert.throws(() => new RoadIndex(other, index.data), (e: { code: string; message: string }) => e.code === 'GRAPH_CORRUPT' && /holds \d+ boxes of 8 roads, the graph has 1 roads/.test(e.message));
    assert.throws(() => new RoadIndex(graph, new ArrayBuffer(16)), (e: { code: string }) => e.code === 'GRAPH_CORRUPT');
  });

  test('RoadIndex.for reads the tree snapping uses (one tree over one buffer per graph) and answers as a built index', () => {
    const g = gothenburg();
    const shared = RoadIndex.for(g);
    assert.equal(RoadIndex.for(g), shared);
    assert.equal(shared.data, roadBoxes(g).data);
    assert.equal(g.indexes.roadTree?.buffer, shared.data);
    const rand = seededRandom(6);
    for (let q = 0; q < 50; q++) {
      const x = 11.9 + rand() * 0.15, y = 57.65 + rand() * 0.1;
      assert.deepEqual(shared.roadsInBox(x, y, x + 0.01, y + 0.01), index.roadsInBox(x, y, x + 0.01, y + 0.01));
    }
  });
});

describe('sharedGraph: a graph on SharedArrayBuffers for worker threads', () => {
  test('copies a plain graph once onto SharedArrayBuffers with equal contents, and returns a shared graph itself', () => {
    const graph = gothenburg();
    assert.equal(isSharedGraph(graph), false);
    const shared = sharedGraph(graph);
    assert.notEqual(shared, graph);
    assert.ok(isSharedGraph(shared));
    for (const key of ARRAY_KEYS) {
      assert.ok(shared[key].buffer instanceof SharedArrayBuffer, key);
      assert.notEqual(shared[key].buffer, graph[key].buffer, key);
      assert.deepEqual(shared[key], graph[key], key);
    }
    // One copy per graph, however often asked; a shared graph is used as it is.
    assert.equal(sharedGraphArrays(graph).nodeLatE7, sharedGraphArrays(graph).nodeLatE7);
    assert.equal(sharedGraph(shared), shared);
    assert.equal(sharedGraphArrays(shared).edgeHead, shared.edgeHead);
  });

  test('a worker on a shared graph and the posted index calculates the same zones as the calling thread', async () => {
    const graph = sharedGraph(gothenburg());
    const calculator = new ZoneCalculator(graph, { workerThreshold: 0 });
    const rand = seededRandom(17);
    try {
      for (let i = 0; i < 6; i++) {
        const cx = 11.9 + rand() * 0.15, cy = 57.66 + rand() * 0.08, r = 0.005 + rand() * 0.03;
        const ring: number[][] = [];
        for (let k = 0; k < 24; k++) { const a = (2 * Math.PI * k) / 24; ring.push([cx + r * Math.cos(a) * (0.6 + 0.4 * rand()), cy + (r / 2) * Math.sin(a)]); }
        ring.push(ring[0]);
        const zone = zoneFromGeoJson(`z${i}`, { type: 'Polygon', coordinates: [ring] });
        assert.ok(calculator.runsOnWorker(zone) || calculator.candidateRoads(zone) === 0);
        const onWorker = await calculator.calculate(zone);
        const inline = calculateZone(graph, zone);
        assert.equal(onWorker.status.name, inline.status.name);
        assert.deepEqual([...onWorker.roads], [...inline.roads]);
        assert.equal(onWorker.edgeCount, inline.edgeCount);
        assert.equal(onWorker.metresInside, inline.metresInside);
        assert.equal(onWorker.blockedLength, inline.blockedLength);
        assert.equal(onWorker.roadCount, graph.roadCount);
      }
    } finally {
      await calculator.close();
    }
  });
});

describe('calculateZone: blocked roads summarised from the blocked ids', () => {
  test('edgeCount and blockedLength equal a scan over every road of the blocked set', () => {
    const graph = gothenburg();
    const zone = zoneFromGeoJson('two', {
      type: 'MultiPolygon',
      coordinates: [
        [[[11.95, 57.69], [11.99, 57.69], [11.99, 57.71], [11.95, 57.71], [11.95, 57.69]]],
        [[[11.97, 57.70], [12.01, 57.70], [12.01, 57.72], [11.97, 57.72], [11.97, 57.70]]],
      ],
    });
    const z = calculateZone(graph, zone);
    assert.ok(z.roads.length > 100);
    for (let i = 1; i < z.roads.length; i++) assert.ok(z.roads[i - 1] < z.roads[i], 'ascending, no repeats');
    const set = new Set(z.roads);
    let edges = 0, length = 0;
    for (let e = 0; e < graph.edgeCount; e++) if (set.has(graph.edgeRoad[e])) edges++;
    for (let r = 0; r < graph.roadCount; r++) if (set.has(r)) length += graph.roadMetres(r);
    assert.equal(z.edgeCount, edges);
    assert.ok(Math.abs(z.blockedLength - length) < 1e-6 * length);
  });
});

describe('calculateZone: work proportional to the zone', () => {
  test('reads only the candidate roads of the graph, never a scan over every road', () => {
    const graph = gothenburg();
    // The same graph with every array behind a proxy that counts element and length reads.
    let elementReads = 0, lengthReads = 0;
    const counted = Object.create(graph) as RoadGraph;
    for (const key of ARRAY_KEYS) {
      const proxy = new Proxy(graph[key], {
        get(target, prop) {
          if (prop === 'length') lengthReads++;
          else if (typeof prop === 'string' && /^\d+$/.test(prop)) elementReads++;
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      Object.defineProperty(counted, key, { value: proxy });
    }
    // The counted graph shares graph.indexes: its road index is adopted from there, not built over the proxies.
    RoadIndex.for(graph);
    RoadIndex.for(counted);
    const zone = zoneFromGeoJson('small', { type: 'Polygon', coordinates: [[[11.968, 57.701], [11.971, 57.701], [11.971, 57.7025], [11.968, 57.7025], [11.968, 57.701]]] });
    elementReads = 0; lengthReads = 0;
    const z = calculateZone(counted, zone);
    const candidates = RoadIndex.for(graph).roadsInBox(11.968, 57.701, 11.971, 57.7025);
    // The tree holds a box per ROADS_PER_BOX consecutive roads: every road of a box that meets the zone's is read.
    const boxes = exactBoxes(graph), eps = 1e-5;
    let candidatePoints = 0;
    for (let first = 0; first < graph.roadCount; first += ROADS_PER_BOX) {
      const last = Math.min(graph.roadCount, first + ROADS_PER_BOX);
      let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
      for (let r = first; r < last; r++) {
        minX = Math.min(minX, boxes[4 * r]); minY = Math.min(minY, boxes[4 * r + 1]);
        maxX = Math.max(maxX, boxes[4 * r + 2]); maxY = Math.max(maxY, boxes[4 * r + 3]);
      }
      if (minX > 11.971 + eps || maxX < 11.968 - eps || minY > 57.7025 + eps || maxY < 57.701 - eps) continue;
      for (let r = first; r < last; r++) candidatePoints += graph.roadPointCount(r);
    }
    assert.ok(z.roads.length > 3, `the zone should block roads (${z.roads.length})`);
    assert.deepEqual([...z.roads], [...calculateZone(graph, zone).roads]);
    // Each candidate point is read a few times (count, lat, lon); each blocked road's length and flags once or twice.
    const bound = 12 * candidatePoints + 4 * z.roads.length;
    assert.ok(elementReads <= bound, `${elementReads} element reads for ${candidates.length} candidate roads (bound ${bound}, graph has ${graph.roadCount} roads)`);
    assert.ok(bound < graph.roadCount / 3, `the bound ${bound} must be far below a scan over every road (${graph.roadCount})`);
    assert.ok(lengthReads <= 4, `${lengthReads} length reads: a loop over every road reads roadCount each turn`);
  });
});
