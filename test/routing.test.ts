import { describe, test, before } from 'node:test';
import { fromE7 } from '../src/geo/coordinates.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import TinyQueue from 'tinyqueue';
import { carRoadAttributes, haversineMetres, openGraph, RoadFlag, Router, type Metric, type RoadGraph } from '../src/index.js';
import { AStarSearch } from '../src/routing/AStarSearch.js';
import { Landmarks } from '../src/routing/Landmarks.js';
import { NgraphSearch } from '../src/routing/NgraphSearch.js';
import { sourceEndpoints, targetEndpoints, directCost } from '../src/routing/endpoints.js';
import { close, dijkstra, GOTHENBURG_GEOJSON, importedGothenburg, roundingSlack, seededRandom, sharedExtract, withinRounding } from './support/helpers.js';

const METRICS: Metric[] = ['distance', 'duration'];

/** Random points near random road shape points, so snapping lands mid-road too. */
function randomPoints(graph: RoadGraph, count: number, seed: number) {
  const rand = seededRandom(seed);
  const out = [];
  for (let i = 0; i < count; i++) {
    const k = Math.floor(rand() * graph.shapeLatE7.length);
    out.push({ latitude: fromE7(graph.shapeLatE7[k]) + (rand() - 0.5) * 0.002, longitude: fromE7(graph.shapeLonE7[k]) + (rand() - 0.5) * 0.002 });
  }
  return out;
}

/** The engines and the oracle must agree on cost (or all find no route) for every pair. */
/**
 * The engines and the oracle must agree on cost (or all find no route) for every pair: A* with
 * landmarks (default), A* with the straight-line bound only, and ngraph.path. With `blockFraction`,
 * each pair also gets a random blocked-road mask.
 */
function checkEnginesAgree(graph: RoadGraph, pairs: number, seed: number, blockFraction = 0) {
  const router = new Router(graph);
  const engines = [
    { name: 'astar+landmarks', search: new AStarSearch(graph) },
    { name: 'astar', search: new AStarSearch(graph, { landmarks: 0 }) },
    { name: 'ngraph', search: new NgraphSearch(graph) },
  ];
  const pts = randomPoints(graph, pairs * 2, seed);
  const rand = seededRandom(seed + 1);
  let routed = 0;
  for (let i = 0; i < pairs; i++) {
    const from = router.snap(pts[2 * i], 'from');
    const to = router.snap(pts[2 * i + 1], 'to');
    let blockedRoads: Uint8Array | undefined;
    if (blockFraction > 0) {
      blockedRoads = new Uint8Array(graph.roadCount);
      for (let r = 0; r < graph.roadCount; r++) blockedRoads[r] = rand() < blockFraction ? 1 : 0;
    }
    for (const metric of METRICS) {
      const sources = sourceEndpoints(graph, from, metric);
      const targets = targetEndpoints(graph, to, metric);
      const query = { sources, targets, metric, targetLatitude: to.latitude, targetLongitude: to.longitude, blockedRoads };
      const direct = directCost(graph, from, to, metric).cost;
      const expected = Math.min(dijkstra(graph, sources, targets, metric, blockedRoads), direct);
      const results = engines.map((e) => ({ name: e.name, found: e.search.find(query) }));
      if (expected === Infinity) {
        for (const r of results) assert.equal(r.found, null, `pair ${i} ${metric}: ${r.name} found a route the oracle did not`);
        continue;
      }
      routed++;
      for (const r of results) {
        const got = Math.min(r.found?.cost ?? Infinity, direct);
        assert.ok(close(got, expected), `pair ${i} ${metric}: ${r.name} ${got} vs dijkstra ${expected}`);
      }
      const a = results[0].found;
      // The edges A* returns are a real path of exactly that cost.
      if (a && a.cost <= direct) {
        const w = graph.edgeCost(metric);
        for (const e of a.edges) assert.ok(!blockedRoads?.[graph.edgeRoad[e]], 'a blocked road was used');
        let node = sources[a.source].node;
        let sum = sources[a.source].cost;
        for (const e of a.edges) {
          assert.equal(graph.edgeTail[e], node, 'edges must chain');
          node = graph.edgeHead[e];
          sum += w[e];
        }
        assert.equal(node, targets[a.target].node);
        assert.ok(close(sum + targets[a.target].cost, a.cost));
      }
    }
  }
  return routed;
}

describe('engines agree with plain Dijkstra', () => {
  test('Gothenburg (default city), 300 random pairs, both metrics', async () => {
    const graph = importedGothenburg();
    const routed = checkEnginesAgree(graph, 300, 1);
    assert.ok(routed > 400, `most pairs should route, only ${routed} of 600 did`);
  });
  test('Gothenburg with random blocked-road masks (5% of roads), 150 pairs', () => {
    const graph = importedGothenburg();
    const routed = checkEnginesAgree(graph, 150, 99, 0.05);
    assert.ok(routed > 50, `too few pairs routed (${routed})`);
  });
  for (const name of ['monaco.osm.pbf', 'andorra.osm.pbf', 'campo-grande.osm.gz']) {
    const data = sharedExtract(name);
    test(`${name}, 150 random pairs, both metrics`, { skip: data.skip }, async () => {
      const graph = await openGraph(data.path);
      const routed = checkEnginesAgree(graph, 150, 7);
      assert.ok(routed > 150, `most pairs should route, only ${routed} of 300 did`);
    });
  }
});

/**
 * An independent oracle for the graph build itself: every coordinate of the GeoJSON is a node,
 * every consecutive pair of coordinates an edge (no splitting, no chain joining), costs exact.
 * Routing between two coordinates must cost the same on it as on the compact graph, but for the
 * compact graph's rounding of each road up to whole centimetres and milliseconds.
 */
describe('compact graph keeps routes identical to the raw segment graph', () => {
  // The raw graph in flat arrays: coordinate keys numbered, edges grouped by tail.
  let raw: { id: Map<string, number>; keys: string[]; firstOut: Int32Array; head: Int32Array; metres: Float64Array; seconds: Float64Array };
  let graph: RoadGraph;
  before(() => {
    const fc = JSON.parse(readFileSync(GOTHENBURG_GEOJSON, 'utf8'));
    graph = importedGothenburg();
    const id = new Map<string, number>();
    const keys: string[] = [];
    const idOf = (k: string) => {
      let i = id.get(k);
      if (i === undefined) id.set(k, (i = keys.push(k) - 1));
      return i;
    };
    const edges: Array<[number, number, number, number]> = [];
    for (const f of fc.features) {
      if (f.geometry?.type !== 'LineString') continue;
      const attrs = carRoadAttributes(f.properties);
      if (!attrs) continue;
      const c = f.geometry.coordinates as number[][];
      for (let i = 0; i + 1 < c.length; i++) {
        const a = `${c[i][0]},${c[i][1]}`;
        const b = `${c[i + 1][0]},${c[i + 1][1]}`;
        if (a === b) continue;
        const m = haversineMetres(c[i][1], c[i][0], c[i + 1][1], c[i + 1][0]);
        const s = m / (attrs.speedKmh / 3.6);
        if (attrs.flags & RoadFlag.FORWARD) edges.push([idOf(a), idOf(b), m, s]);
        if (attrs.flags & RoadFlag.BACKWARD) edges.push([idOf(b), idOf(a), m, s]);
      }
    }
    edges.sort((x, y) => x[0] - y[0]);
    const firstOut = new Int32Array(keys.length + 1);
    for (const [a] of edges) firstOut[a + 1]++;
    for (let i = 0; i < keys.length; i++) firstOut[i + 1] += firstOut[i];
    raw = {
      id, keys, firstOut,
      head: Int32Array.from(edges, (e) => e[1]), metres: Float64Array.from(edges, (e) => e[2]), seconds: Float64Array.from(edges, (e) => e[3]),
    };
  });

  function rawDijkstra(from: string, to: string, metric: Metric): number {
    const weight = metric === 'distance' ? raw.metres : raw.seconds;
    const source = raw.id.get(from)!, target = raw.id.get(to)!;
    const dist = new Float64Array(raw.keys.length).fill(Infinity);
    dist[source] = 0;
    const q = new TinyQueue<[number, number]>([[0, source]], (a, b) => a[0] - b[0]);
    while (q.length) {
      const [d, u] = q.pop()!;
      if (u === target) return d;
      if (d > dist[u]) continue;
      for (let e = raw.firstOut[u]; e < raw.firstOut[u + 1]; e++) {
        const nd = d + weight[e];
        if (nd < dist[raw.head[e]]) {
          dist[raw.head[e]] = nd;
          q.push([nd, raw.head[e]]);
        }
      }
    }
    return Infinity;
  }

  test('80 random coordinate pairs, both metrics', () => {
    const router = new Router(graph, { maxSnapDistance: 1 });
    const rand = seededRandom(42);
    let compared = 0;
    for (let i = 0; i < 80; i++) {
      const a = raw.keys[Math.floor(rand() * raw.keys.length)];
      const b = raw.keys[Math.floor(rand() * raw.keys.length)];
      const [alon, alat] = a.split(',').map(Number);
      const [blon, blat] = b.split(',').map(Number);
      for (const metric of METRICS) {
        const expected = rawDijkstra(a, b, metric);
        let got = Infinity, slack = 0;
        try {
          const route = router.route({
            points: [{ latitude: alat, longitude: alon }, { latitude: blat, longitude: blon }],
            calculationMode: metric === 'distance' ? 'THE_SHORTEST' : 'THE_FASTEST',
          });
          got = metric === 'distance' ? route.distance : route.duration;
          slack = roundingSlack(graph, route.legs[0], metric);
        } catch (err) {
          assert.equal((err as { code?: string }).code, 'ROUTE_NOT_FOUND', String(err));
        }
        if (expected === Infinity) {
          assert.equal(got, Infinity, `pair ${i} ${metric}: routed where the raw graph has no path`);
        } else {
          compared++;
          // Never below the exact cost; above it by at most the compact graph's rounding up of each road.
          assert.ok(withinRounding(got, expected, slack, 1e-7), `pair ${i} ${metric}: compact ${got} vs raw ${expected} (slack ${slack})`);
        }
      }
    }
    assert.ok(compared > 60, `too few routable pairs (${compared})`);
  });
});

describe('ALT landmarks', () => {
  test('16-bit landmark bounds never exceed the true cost (plain Dijkstra) and are mostly tight', () => {
    const graph = importedGothenburg();
    const rand = seededRandom(11);
    for (const metric of ['distance', 'duration'] as const) {
      const lm = Landmarks.for(graph, metric, 16);
      let ratioSum = 0;
      let finite = 0;
      for (let i = 0; i < 120; i++) {
        const v = Math.floor(rand() * graph.nodeCount);
        const t = Math.floor(rand() * graph.nodeCount);
        const exact = dijkstra(graph, [{ node: v, cost: 0 }], [{ node: t, cost: 0 }], metric);
        const bound = lm.lowerBound(v, t);
        assert.ok(bound <= exact, `${metric} ${v} -> ${t}: bound ${bound} > cost ${exact}`);
        if (exact !== Infinity && exact > 0) {
          ratioSum += bound / exact;
          finite++;
        }
      }
      assert.ok(finite > 60);
      assert.ok(ratioSum / finite > 0.5, `${metric}: bounds average ${(ratioSum / finite).toFixed(2)} of the true cost`);
    }
  });
});
