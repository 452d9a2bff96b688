import { withHierarchy } from '../src/hierarchy/hierarchySections.js';
import type { HierarchyGraph } from '../src/hierarchy/ContractionHierarchy.js';
import { describe, test } from 'node:test';
import { toE7 } from '../src/geo/coordinates.js';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHierarchy, buildHierarchyInWorkers, calculateZone, decodeGraph, encodeGraph, GraphBuilder, importGeoJson, loadGraph, openGraph, RoadFlag, RoadGraph, Router, saveGraph, zoneFromGeoJson, DetourError, type Metric } from '../src/index.js';
import { CHQuery } from '../src/routing/CHQuery.js';
import { HierarchySearch } from '../src/routing/HierarchySearch.js';
import { OverlaySearch } from '../src/routing/OverlaySearch.js';
import {
  arcHead, arcLowerEnd, arcTail, contractionOrder, HIERARCHY_ARRAY_KEYS, shortcutHalves,
} from '../src/hierarchy/ContractionHierarchy.js';
import { ARRAY_KEYS, costSteps } from '../src/graph/RoadGraph.js';
import { directCost, sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';
import type { Endpoint } from '../src/routing/PathSearch.js';
import { uniformPenalty } from '../src/routing/PathSearch.js';
import { NodeRecords, SHRINK_WINDOW } from '../src/structures/NodeRecords.js';
import { otherArcCost, otherMetric, otherMetricArcCosts, popcount32 } from '../src/hierarchy/otherMetricArcCosts.js';
import { DEFAULT_SHORTCUT_PATH_BYTES, MIN_KEPT_EDGES, ShortcutPaths } from '../src/routing/ShortcutPaths.js';
import { close, dijkstra, GOTHENBURG_GEOJSON, randomZone, seededRandom, sharedExtract } from './support/helpers.js';

const METRICS: Metric[] = ['duration', 'distance'];

/** The path's edges chain from a source endpoint to a target endpoint and add up to the reported cost. */
function checkPath(graph: HierarchyGraph, found: { cost: number; source: number; target: number; edges: number[] }, sources: Endpoint[], targets: Endpoint[], metric: Metric, extra?: (e: number) => number) {
  const weight = graph.edgeCost(metric);
  const s = sources[found.source], t = targets[found.target];
  assert.ok(s && t, 'source and target endpoints are named');
  let node = s.node;
  let sum = s.cost;
  for (const e of found.edges) {
    assert.equal(graph.edgeTail[e], node, 'unpacked edges form a path');
    node = graph.edgeHead[e];
    sum += weight[e] + (extra ? extra(e) : 0);
  }
  assert.equal(node, t.node, 'the path ends at the target endpoint');
  sum += t.cost;
  assert.ok(close(sum, found.cost, 1e-9), `unpacked cost ${sum} vs reported ${found.cost}`);
}

/** Random snapped stop pairs (mid-road snaps give two weighted endpoints each). */
function randomStops(graph: HierarchyGraph, router: Router, rand: () => number) {
  const ra = Math.floor(rand() * graph.roadCount), rb = Math.floor(rand() * graph.roadCount);
  const points = [
    { latitude: graph.roadPointLat(ra, 0) + (rand() - 0.5) * 1e-3, longitude: graph.roadPointLon(ra, 0) + (rand() - 0.5) * 1e-3 },
    { latitude: graph.roadPointLat(rb, 0) + (rand() - 0.5) * 1e-3, longitude: graph.roadPointLon(rb, 0) + (rand() - 0.5) * 1e-3 },
  ];
  const [from, to] = router.snapStops(points);
  return { points, from, to };
}


/**
 * Free routes through the CH query, routes with random blocked-road sets and with random zones
 * through the CH-potential A*, all against plain Dijkstra on snapped (phantom) endpoints.
 */
function checkNetwork(graph: HierarchyGraph, pairs: number, seed: number) {
  const rand = seededRandom(seed);
  const router = new Router(graph);
  assert.equal(router.search.name, 'ch', 'a graph with a hierarchy routes with it by default');
  const free = new CHQuery(graph, graph.hierarchy!);
  const constrained = new OverlaySearch(graph, graph.hierarchy!.overlay!);
  const engine = new HierarchySearch(graph);
  let routed = 0, blockedRouted = 0, zoneRouted = 0, freePathKept = 0, detoured = 0;
  for (let i = 0; i < pairs; i++) {
    const { from, to } = randomStops(graph, router, rand);
    const blocked = new Uint8Array(graph.roadCount);
    for (let r = 0; r < graph.roadCount; r++) blocked[r] = rand() < 0.05 ? 1 : 0;
    const zoneMask = new Uint8Array(graph.roadCount);
    for (const z of [randomZone(graph, rand, 'a', 200 + rand() * 1500), randomZone(graph, rand, 'b', 200 + rand() * 1500)]) {
      for (const r of z.roads) zoneMask[r] = 1;
    }
    for (const metric of METRICS) {
      const sources = sourceEndpoints(graph, from, metric);
      const targets = targetEndpoints(graph, to, metric);
      const base = { sources, targets, metric, targetLatitude: to.latitude, targetLongitude: to.longitude };
      // Free: the CH query.
      const expected = dijkstra(graph, sources, targets, metric);
      const found = free.find(sources, targets, metric);
      if (expected === Infinity) assert.equal(found, null, `pair ${i} ${metric}: CH found a route Dijkstra did not`);
      else {
        assert.ok(found, `pair ${i} ${metric}: CH found no route, Dijkstra ${expected}`);
        assert.ok(close(found.cost, expected, 1e-9), `pair ${i} ${metric}: CH ${found.cost} vs Dijkstra ${expected}`);
        checkPath(graph, found, sources, targets, metric);
        routed++;
      }
      // Blocked roads and zones: the CH-potential A*.
      for (const [mask, kind] of [[blocked, 'blocked'], [zoneMask, 'zones']] as const) {
        const want = dijkstra(graph, sources, targets, metric, mask);
        const got = constrained.find({ ...base, blockedRoads: mask });
        if (want === Infinity) { assert.equal(got, null, `pair ${i} ${metric} ${kind}: found a route Dijkstra did not`); continue; }
        assert.ok(got, `pair ${i} ${metric} ${kind}: no route, Dijkstra ${want}`);
        assert.ok(close(got.cost, want, 1e-9), `pair ${i} ${metric} ${kind}: ${got.cost} vs Dijkstra ${want}`);
        for (const e of got.edges) assert.equal(mask[graph.edgeRoad[e]], 0, `${kind}: a blocked road was used`);
        checkPath(graph, got, sources, targets, metric);
        if (kind === 'blocked') blockedRouted++; else zoneRouted++;
        // The engine: the free query's path where it drives no blocked road, else the A*.
        const answer = engine.find({ ...base, blockedRoads: mask });
        assert.ok(answer && close(answer.cost, want, 1e-9), `pair ${i} ${metric} ${kind}: engine ${answer?.cost} vs Dijkstra ${want}`);
        for (const e of answer.edges) assert.equal(mask[graph.edgeRoad[e]], 0, `${kind}: the engine used a blocked road`);
        checkPath(graph, answer, sources, targets, metric);
        if (found && found.edges.every((e) => mask[graph.edgeRoad[e]] === 0)) {
          assert.equal(engine.settledCount, free.settledCount, `pair ${i} ${metric} ${kind}: the free path avoids the mask, yet the engine searched on`);
          freePathKept++;
        } else {
          assert.ok(engine.settledCount > free.settledCount, `pair ${i} ${metric} ${kind}: the free path drives a blocked road, yet no A* ran`);
          detoured++;
        }
      }
    }
  }
  assert.ok(routed >= pairs, `too few free routes compared (${routed})`);
  assert.ok(blockedRouted >= pairs / 2 && zoneRouted >= pairs / 2, `too few constrained routes (${blockedRouted}, ${zoneRouted})`);
  assert.ok(freePathKept > 0 && detoured > 0, `both engine branches exercised (free path kept ${freePathKept}, detoured ${detoured})`);
}

const gothenburg: HierarchyGraph = importGeoJson(JSON.parse(readFileSync(GOTHENBURG_GEOJSON, 'utf8')), { source: 'gothenburg', attribution: 'ODbL' });
buildHierarchy(gothenburg);

/** A copy of the city contracted with a low core degree, which leaves an uncontracted core; made once, read by two tests. */
let coreCity: HierarchyGraph | undefined;
function cityWithCore(): HierarchyGraph {
  if (coreCity) return coreCity;
  coreCity = new RoadGraph(gothenburg.arrays(), gothenburg.meta);
  buildHierarchy(coreCity, { coreDegree: 4 });
  return coreCity;
}

describe('contraction hierarchy routes equal plain Dijkstra', () => {
  test('Gothenburg: 200 pairs, both metrics, free / 5% blocked roads / two random zones', () => {
    checkNetwork(gothenburg, 200, 9);
  });

  for (const name of ['monaco.osm.pbf', 'andorra.osm.pbf', 'campo-grande.osm.gz']) {
    const data = sharedExtract(name);
    test(`${name}: 120 pairs, both metrics, free / blocked / zones`, { skip: data.skip }, async () => {
      const graph = await openGraph(data.path);
      buildHierarchy(graph);
      checkNetwork(graph, 120, name.length * 31);
    });
  }

  test('Gothenburg with a forced uncontracted core (coreDegree 4): 60 pairs, free / blocked / zones', () => {
    const copy = cityWithCore();
    const core = copy.nodeCount - copy.hierarchy!.duration.coreRank[0];
    assert.ok(core > 100, `the core has ${core} nodes`);
    checkNetwork(copy, 60, 5);
  });

  test('contracting on two worker threads gives the same arrays as on the main thread', async () => {
    const copy: HierarchyGraph = new RoadGraph(gothenburg.arrays(), gothenburg.meta);
    let last = 0;
    const h = await buildHierarchyInWorkers(copy, { onProgress: (done, total) => { assert.ok(done <= total && total === 2 * copy.nodeCount); last = done; } });
    assert.equal(last, 2 * copy.nodeCount, 'progress reaches the total');
    assert.equal(copy.hierarchy, h);
    for (const metric of METRICS) {
      for (const key of HIERARCHY_ARRAY_KEYS) assert.deepEqual(h[metric][key], gothenburg.hierarchy![metric][key], `${metric}.${key}`);
    }
    assert.deepEqual(h.overlay, gothenburg.hierarchy!.overlay, 'the cell overlay');
  });

  test('random small graphs with one-ways, parallel roads and loops: every pair equals Dijkstra', () => {
    const rand = seededRandom(4242);
    let compared = 0;
    for (let round = 0; round < 40; round++) {
      const b = new GraphBuilder();
      const n = 8 + Math.floor(rand() * 40);
      const ids = Array.from({ length: n }, () => b.addPoint(57 + rand() * 0.05, 11 + rand() * 0.05));
      const ways = n + Math.floor(rand() * 3 * n);
      for (let k = 0; k < ways; k++) {
        const a = ids[Math.floor(rand() * n)], c = ids[Math.floor(rand() * n)];
        const via = rand() < 0.3 ? [ids[Math.floor(rand() * n)]] : [];
        const dir = rand();
        const flags = dir < 0.2 ? RoadFlag.FORWARD : dir < 0.3 ? RoadFlag.BACKWARD : RoadFlag.FORWARD | RoadFlag.BACKWARD;
        b.addWay([a, ...via, c], { flags, speedKmh: [20, 50, 90][Math.floor(rand() * 3)], highwayClass: 5 });
      }
      let graph: HierarchyGraph;
      try { graph = b.build({ source: 'random', attribution: '', profile: 'car', builtAt: '' }); } catch { continue; }
      // Every third graph stops contracting early: a large uncontracted core.
      buildHierarchy(graph, round % 3 === 0 ? { coreDegree: 1.5 } : {});
      const query = new CHQuery(graph, graph.hierarchy!);
      for (let s = 0; s < graph.nodeCount; s++) {
        for (let t = 0; t < graph.nodeCount; t++) {
          for (const metric of METRICS) {
            const sources = [{ node: s, cost: rand() * 10, reversed: false }];
            const targets = [{ node: t, cost: rand() * 10, reversed: false }, { node: Math.floor(rand() * graph.nodeCount), cost: rand() * 100, reversed: true }];
            const want = dijkstra(graph, sources, targets, metric);
            const got = query.find(sources, targets, metric);
            if (want === Infinity) { assert.equal(got, null); continue; }
            assert.ok(got && close(got.cost, want, 1e-9), `round ${round} ${s}->${t} ${metric}: ${got?.cost} vs ${want}`);
            checkPath(graph, got, sources, targets, metric);
            compared++;
          }
        }
      }
    }
    assert.ok(compared > 5000, `compared ${compared}`);
  });

  test('every upward arc leads to a higher rank and every downward arc comes from one (the kept rank, or the order the arcs make)', () => {
    for (const metric of METRICS) {
      const ch = gothenburg.hierarchy![metric];
      const core = ch.coreRank[0];
      assert.equal(ch.rank.length, core < gothenburg.nodeCount ? gothenburg.nodeCount : 0, 'a rank is kept only with a core');
      const rank = ch.rank.length ? ch.rank : contractionOrder(ch)!;
      assert.ok(rank, 'the arcs make an order (no cycle)');
      for (let v = 0; v < gothenburg.nodeCount; v++) {
        // Outside the core arcs lead up; inside it they join core nodes.
        const ok = (w: number) => rank[w] > rank[v] || (rank[v] >= core && rank[w] >= core && w !== v);
        for (let a = ch.upFirst[v]; a < ch.upFirst[v + 1]; a++) assert.ok(ok(ch.arcNode[a]));
        for (let a = ch.downFirst[v]; a < ch.downFirst[v + 1]; a++) assert.ok(ok(ch.arcNode[a]));
      }
      assert.equal(new Set(rank).size, gothenburg.nodeCount, 'ranks are a permutation');
    }
  });

  test('the contraction rank is kept, saved and used when a core is left (a core node\'s arcs join core nodes both ways)', () => {
    // A low core degree leaves a core on the city (routes on it: the coreDegree 4 test above).
    const copy = cityWithCore();
    const ch = copy.hierarchy!.duration;
    assert.ok(ch.coreRank[0] < gothenburg.nodeCount, 'a core is left');
    assert.equal(ch.rank.length, gothenburg.nodeCount);
    assert.equal(contractionOrder(ch), undefined, 'core arcs form cycles: no order from the arcs alone');
    const loaded = decodeGraph(encodeGraph(copy));
    assert.deepEqual(loaded.hierarchy!.duration.rank, ch.rank);
  });

  test('an arc is its edge (same ends and cost) or a shortcut through a lower middle node whose two halves there add up to it', () => {
    const halves = [0, 0];
    for (const metric of METRICS) {
      const ch = gothenburg.hierarchy![metric];
      const weight = gothenburg.edgeCost(metric);
      const rank = ch.rank.length ? ch.rank : contractionOrder(ch)!;
      let shortcuts = 0;
      for (let v = 0; v < gothenburg.nodeCount; v++) {
        for (const [first, up] of [[ch.upFirst, true], [ch.downFirst, false]] as const) {
          for (let a = first[v]; a < first[v + 1]; a++) {
            const tail = up ? v : ch.arcNode[a], head = up ? ch.arcNode[a] : v;
            assert.equal(arcTail(ch, a, v), tail);
            assert.equal(arcHead(ch, a, v), head);
            assert.equal(arcLowerEnd(ch, a), v);
            if (a > first[v]) assert.ok(ch.arcNode[a - 1] < ch.arcNode[a], 'sorted by the other end');
            const m = ch.arcMiddle[a];
            if (m < 0) {
              assert.equal(gothenburg.edgeTail[~m], tail);
              assert.equal(gothenburg.edgeHead[~m], head);
              assert.equal(ch.arcWeight[a], costSteps(weight[~m], metric), 'an edge costs its whole steps');
              continue;
            }
            shortcuts++;
            assert.ok(rank[m] < rank[tail] && rank[m] < rank[head], 'the middle ranks below both ends');
            shortcutHalves(ch, tail, head, m, halves);
            assert.equal(ch.arcNode[halves[0]], tail);
            assert.equal(ch.arcNode[halves[1]], head);
            assert.equal(ch.arcWeight[halves[0]] + ch.arcWeight[halves[1]], ch.arcWeight[a], 'the halves add up');
          }
        }
      }
      assert.ok(shortcuts > 1000, `${metric}: ${shortcuts} shortcuts checked`);
    }
  });

  test("every arc's cost in the other metric (originals read from the roads, shortcuts stored by rank) is the sum over the edges it unpacks to", () => {
    const halves = [0, 0];
    for (const metric of METRICS) {
      const ch = gothenburg.hierarchy![metric];
      const other = otherMetric(metric), roadCost = gothenburg.roadCost(other);
      const costs = otherMetricArcCosts(gothenburg, ch);
      const sumOver = (a: number, low: number): number => {
        const m = ch.arcMiddle[a];
        if (m < 0) return roadCost[gothenburg.edgeRoad[~m]];
        shortcutHalves(ch, arcTail(ch, a, low), arcHead(ch, a, low), m, halves);
        const [first, second] = halves;
        return sumOver(first, m) + sumOver(second, m);
      };
      let shortcuts = 0;
      for (let v = 0; v < gothenburg.nodeCount; v++) {
        for (const first of [ch.upFirst, ch.downFirst]) {
          for (let a = first[v]; a < first[v + 1]; a++) {
            if (ch.arcMiddle[a] >= 0) shortcuts++;
            assert.equal(otherArcCost(costs, a), sumOver(a, v), `${metric} arc ${a}`);
          }
        }
      }
      assert.equal(costs.shortcutCost.length, shortcuts, 'one stored value per shortcut');
      assert.ok(shortcuts > 1000 && shortcuts < ch.arcMiddle.length, `${metric}: ${shortcuts} shortcuts of ${ch.arcMiddle.length} arcs`);
    }
    for (const w of [0, 1, 0x80000000, 0xffffffff, 0x12345678]) {
      assert.equal(popcount32(w | 0), [...w.toString(2)].filter((b) => b === '1').length, `popcount of ${w}`);
    }
  });

  test('kept unpacked shortcuts give the same edges as unpacking each arc by its halves, through generations dropped', () => {
    const halves = [0, 0];
    for (const metric of METRICS) {
      const ch = gothenburg.hierarchy![metric];
      // The oracle: recursion over the two halves of every shortcut, nothing kept.
      const unpacked = (a: number, low: number, out: number[]): void => {
        const m = ch.arcMiddle[a];
        if (m < 0) { out.push(~m); return; }
        shortcutHalves(ch, arcTail(ch, a, low), arcHead(ch, a, low), m, halves);
        const [first, second] = halves;
        unpacked(first, m, out);
        unpacked(second, m, out);
      };
      const arcs: [number, number][] = [];
      for (let v = 0; v < gothenburg.nodeCount; v++) {
        for (const first of [ch.upFirst, ch.downFirst]) for (let a = first[v]; a < first[v + 1]; a++) arcs.push([a, v]);
      }
      const rand = seededRandom(metric === 'duration' ? 5 : 6);
      // Long shortcuts first, then each arc again in random order: most of the second round is kept edges.
      const longest = [...arcs].sort((x, y) => ch.arcWeight[y[0]] - ch.arcWeight[x[0]]).slice(0, 2000);
      const order = [...longest, ...longest, ...Array.from({ length: 6000 }, () => arcs[Math.floor(rand() * arcs.length)])];
      for (const maxBytes of [4096, DEFAULT_SHORTCUT_PATH_BYTES]) {
        const paths = new ShortcutPaths(ch, maxBytes);
        let peak = 0, longOnes = 0;
        for (const [a, low] of order) {
          const expected: number[] = [], got: number[] = [7];
          unpacked(a, low, expected);
          paths.unpack(a, low, got);
          assert.deepEqual(got.slice(1), expected, `${metric}, arc ${a}, ${maxBytes} B kept at most`);
          if (expected.length >= MIN_KEPT_EDGES) longOnes++;
          peak = Math.max(peak, paths.byteSize);
          assert.ok(paths.byteSize <= maxBytes, `${paths.byteSize} B kept, ${maxBytes} allowed`);
        }
        assert.ok(longOnes > 100 && peak > Math.min(maxBytes / 4, 10_000), `${metric}: ${longOnes} long shortcuts, ${peak} B kept at the peak`);
      }
    }
  });

  test('each road\'s time is whole milliseconds at or above its exact time at its speed', () => {
    for (let r = 0; r < gothenburg.roadCount; r += 97) {
      const exact = gothenburg.roadMetres(r) / (gothenburg.roadSpeedKmh[r] / 3.6), seconds = gothenburg.roadMillis[r] / 1000;
      assert.ok(seconds >= exact - 1e-12 && seconds < exact + 0.001, `road ${r}: ${seconds} s for ${exact}`);
    }
  });

  test('a way without a positive speed is INVALID_INPUT naming the way, not a graph of infinite times', () => {
    const builder = new GraphBuilder();
    const a = builder.addPoint(57.7, 11.9), b = builder.addPoint(57.71, 11.91);
    builder.addWay([a, b], { flags: RoadFlag.FORWARD | RoadFlag.BACKWARD, speedKmh: 50, highwayClass: 5 });
    for (const speedKmh of [0, -5, NaN, Infinity]) {
      assert.throws(() => builder.addWay([b, a], { flags: RoadFlag.FORWARD, speedKmh, highwayClass: 5 }),
        (err: DetourError) => err.code === 'INVALID_INPUT' && /way 1: speedKmh must be a positive number/.test(err.message), String(speedKmh));
    }
  });

  test('a road longer than 32 bits of centimetres is INVALID_INPUT, not a length wrapped to a short one', () => {
    const builder = new GraphBuilder();
    const META = { source: 'long', attribution: '', profile: 'car', builtAt: '' };
    // Three legs of ~19,900 km along the equator: ~59,700 km, past 42,949 km.
    const points = [[0, 0], [0, 179], [0, -2], [0, 177]].map(([lat, lon]) => builder.addPoint(lat, lon));
    builder.addWay(points, { flags: RoadFlag.FORWARD | RoadFlag.BACKWARD, speedKmh: 50, highwayClass: 5 });
    assert.throws(() => builder.build(META), (err: DetourError) => err.code === 'INVALID_INPUT' && /longer than 32 bits of centimetres/.test(err.message));
    // Two legs (~39,800 km) still fit.
    const fits = new GraphBuilder();
    fits.addWay([[0, 0], [0, 179], [0, -2]].map(([lat, lon]) => fits.addPoint(lat, lon)), { flags: RoadFlag.FORWARD | RoadFlag.BACKWARD, speedKmh: 50, highwayClass: 5 });
    const graph = fits.build(META);
    assert.ok(Math.abs(graph.roadMetres(0) - 39.8e6) < 0.2e6, `${graph.roadMetres(0)} m`);
  });

  test('NodeRecords agree with a Map through growth, clears and the room given back after a window of small searches', () => {
    const n = 5000, rand = seededRandom(8);
    const records = new NodeRecords(n, 4);
    const startBytes = records.byteSize;
    let peakBytes = 0;
    // Searches of 3000 touched nodes, then many of 10: the room grows, then is given back.
    const sizes = [...Array.from({ length: 5 }, () => 3000), ...Array.from({ length: 3 * SHRINK_WINDOW }, () => 10)];
    for (const size of sizes) {
      records.clear();
      const oracle = new Map<number, number>();
      for (let k = 0; k < 2 * size; k++) {
        const v = Math.floor(rand() * (size < 100 ? 50 : n)), c = Math.floor(rand() * 1000);
        const i = records.improve(v, c);
        const had = oracle.get(v);
        assert.equal(i >= 0, had === undefined || c < had, `node ${v} cost ${c} against ${had}`);
        if (i >= 0) { oracle.set(v, c); records.words[4 * i + 3] = v ^ 0x55; }
      }
      for (let v = 0; v < n; v += 7) {
        const i = records.find(v);
        assert.equal(i >= 0, oracle.has(v), `node ${v} known`);
        if (i >= 0) { assert.equal(records.values[2 * i], oracle.get(v)); assert.equal(records.words[4 * i + 3], v ^ 0x55); }
      }
      peakBytes = Math.max(peakBytes, records.byteSize);
    }
    assert.ok(peakBytes > startBytes + 16 * 2000, `grew to ${peakBytes} bytes from ${startBytes}`);
    assert.ok(records.byteSize < startBytes + 16 * 100, `gave the room back: ${records.byteSize} bytes (peak ${peakBytes})`);
  });

  test('NodeRecords agree with a Map for ids up to 2^31 and colliding hashes, cleared slot by slot and whole', () => {
    const rand = seededRandom(9);
    const records = new NodeRecords(2 ** 31, 2);
    // A big search (the table cleared whole after it), small ones (slot by slot), a bigger one, a tiny one.
    for (const size of [3000, 10, 40_000, 5]) {
      records.clear();
      const oracle = new Map<number, number>();
      for (let k = 0; k < 2 * size; k++) {
        // Dense ids and ids spaced by 2^12 (many hash to runs of neighbouring slots), some repeated.
        const v = k % 3 === 0 ? Math.floor(rand() * 2 * size) : k % 3 === 1 ? (Math.floor(rand() * size) << 12) >>> 0 : 2_147_483_647 - Math.floor(rand() * size);
        const c = rand() * 1000;
        const i = records.improve(v, c);
        const had = oracle.get(v);
        assert.equal(i >= 0, had === undefined || c < had, `node ${v} cost ${c} against ${had}`);
        if (i >= 0) oracle.set(v, c);
      }
      assert.equal(records.count, oracle.size);
      for (const [v, cost] of oracle) {
        const i = records.find(v);
        assert.ok(i >= 0 && records.values[2 * i] === cost && records.words[4 * i + 2] === v, `node ${v}`);
      }
      for (let k = 0; k < 200; k++) {
        const v = Math.floor(rand() * 2 ** 31);
        assert.equal(records.find(v) >= 0, oracle.has(v), `node ${v} held`);
      }
    }
    records.clear();
    assert.equal(records.find(0), -1);
  });

  test('a free query and the overlay search sharing their node records stay exact, also when the entries grow mid-search', () => {
    const graph = gothenburg;
    const router = new Router(graph);
    const rand = seededRandom(41);
    let compared = 0;
    // Room for 1 entry first (every search grows it inside its loops), then the default room; the
    // searches share the two records in turn: entries left from another search must not count.
    for (const capacity of [1, undefined]) {
      const sides = [new NodeRecords(graph.nodeCount, capacity), new NodeRecords(graph.nodeCount, capacity)] as const;
      const free = new CHQuery(graph, graph.hierarchy!, sides);
      const constrained = new OverlaySearch(graph, graph.hierarchy!.overlay!, sides);
      for (let i = 0; i < 12; i++) {
        const { from, to } = randomStops(graph, router, rand);
        const zone = randomZone(graph, rand, 'z', 300 + rand() * 1500);
        const mask = new Uint8Array(graph.roadCount);
        for (const r of zone.roads) mask[r] = 1;
        for (const metric of METRICS) {
          const sources = sourceEndpoints(graph, from, metric);
          const targets = targetEndpoints(graph, to, metric);
          const base = { sources, targets, metric, targetLatitude: to.latitude, targetLongitude: to.longitude };
          for (const blocked of [undefined, mask]) {
            const want = dijkstra(graph, sources, targets, metric, blocked);
            const got = blocked ? constrained.find({ ...base, blockedRoads: blocked }) : free.find(sources, targets, metric);
            if (want === Infinity) { assert.equal(got, null); continue; }
            assert.ok(got && close(got.cost, want, 1e-9), `capacity ${capacity} pair ${i} ${metric} ${blocked ? 'zone' : 'free'}: ${got?.cost} vs Dijkstra ${want}`);
            checkPath(graph, got, sources, targets, metric);
            compared++;
          }
        }
      }
    }
    assert.ok(compared >= 80, `compared ${compared}`);
  });
});

describe('stops inside zones with the hierarchy engine', () => {
  test('least metres inside zones first: the penalised CH-potential A* equals penalised Dijkstra; Router agrees with the ALT engine', () => {
    const rand = seededRandom(77);
    const router = new Router(gothenburg);
    const alt = new Router(gothenburg, { engine: 'astar', snapIndex: router.snapIndex });
    const search = new HierarchySearch(gothenburg);
    let inside = 0;
    for (let i = 0; i < 40; i++) {
      const zone = randomZone(gothenburg, rand, `z${i}`, 300 + rand() * 800);
      if (zone.roads.length === 0) continue;
      // One stop on a road of the zone, the other anywhere.
      const r = zone.roads[Math.floor(rand() * zone.roads.length)];
      const rb = Math.floor(rand() * gothenburg.roadCount);
      const points = [
        { latitude: gothenburg.roadPointLat(r, 0), longitude: gothenburg.roadPointLon(r, 0) },
        { latitude: gothenburg.roadPointLat(rb, 1), longitude: gothenburg.roadPointLon(rb, 1) },
      ];
      const [from, to] = router.snapStops(points);
      const roads = new Uint8Array(gothenburg.roadCount);
      for (const z of zone.roads) roads[z] = 1;
      if (!roads[from.road] && !roads[to.road]) continue;
      const penalty = uniformPenalty(roads, 1e6);
      for (const metric of METRICS) {
        const sources = sourceEndpoints(gothenburg, from, metric, penalty);
        const targets = targetEndpoints(gothenburg, to, metric, penalty);
        const want = Math.min(dijkstra(gothenburg, sources, targets, metric, undefined, penalty), directCost(gothenburg, from, to, metric, penalty).cost);
        const got = search.find({ sources, targets, metric, targetLatitude: to.latitude, targetLongitude: to.longitude, penalty });
        const direct = directCost(gothenburg, from, to, metric, penalty).cost;
        const best = Math.min(got?.cost ?? Infinity, direct);
        assert.ok(best === want || close(best, want, 1e-9), `zone ${i} ${metric}: ${best} vs penalised Dijkstra ${want}`);
        if (got && got.cost <= direct) checkPath(gothenburg, got, sources, targets, metric, (e) => (roads[gothenburg.edgeRoad[e]] ? 1e6 * gothenburg.edgeDistance[e] : 0));
      }
      let a, b;
      try { a = router.route({ points, zones: [zone] }); } catch (err) { a = (err as DetourError).code; }
      try { b = alt.route({ points, zones: [zone] }); } catch (err) { b = (err as DetourError).code; }
      if (typeof a === 'string' || typeof b === 'string') { assert.equal(a, b); continue; }
      inside++;
      assert.ok(close(a.distance, b.distance, 1e-9) && close(a.duration, b.duration, 1e-9), `zone ${i}: ${a.distance} m vs ALT ${b.distance} m`);
      assert.deepEqual(a.legs[0].zonesEntered?.map((z) => z.name), b.legs[0].zonesEntered?.map((z) => z.name));
    }
    assert.ok(inside >= 10, `too few stops inside zones (${inside})`);
  });

  test("a zone request does not leak into the next one (the router's scratch mask is cleared)", () => {
    const router = new Router(gothenburg);
    const points = [{ latitude: 57.7, longitude: 11.94 }, { latitude: 57.71, longitude: 11.99 }];
    const before = router.route({ points });
    const free = before.legs[0].edges;
    // Block a road in the middle of the free path with a small zone around it.
    const e = free[Math.floor(free.length / 2)];
    const r = gothenburg.edgeRoad[e];
    const lat = gothenburg.roadPointLat(r, 0), lon = gothenburg.roadPointLon(r, 0);
    const d = 0.0005;
    const zone = calculateZone(gothenburg, zoneFromGeoJson('block', { type: 'Polygon', coordinates: [[[lon - d, lat - d], [lon + d, lat - d], [lon + d, lat + d], [lon - d, lat + d], [lon - d, lat - d]]] }));
    const around = router.route({ points, zones: [zone] });
    assert.ok(around.legs[0].edges.every((x) => !zone.roads.includes(gothenburg.edgeRoad[x])));
    assert.notDeepEqual(around.legs[0].edges, free);
    const hard = new Uint8Array(gothenburg.roadCount);
    hard[gothenburg.edgeRoad[free[1]]] = 1;
    // Succeeding or not (ROUTE_NOT_FOUND), a request with zones and a hard mask leaves nothing behind.
    try { router.route({ points, zones: [zone], blockedRoads: hard }); } catch (err) { assert.equal((err as DetourError).code, 'ROUTE_NOT_FOUND'); }
    assert.throws(() => router.route({ points: [points[0], { latitude: 57.5, longitude: 11.5 }], zones: [zone] }));
    // With an unrelated zone (in the sea, no roads) the router uses its scratch mask again: no leftovers.
    const sea = calculateZone(gothenburg, zoneFromGeoJson('sea', { type: 'Polygon', coordinates: [[[11.69, 57.59], [11.71, 57.59], [11.71, 57.61], [11.69, 57.61], [11.69, 57.59]]] }));
    assert.equal(sea.roads.length, 0);
    assert.deepEqual(router.route({ points, zones: [sea] }).legs[0].edges, free, 'the next route is the free one again');
  });
});

describe('graph file with the hierarchy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'detour-ch-'));

  test('save then load: both hierarchies come back on SharedArrayBuffers and route the same', () => {
    const path = join(dir, 'g.detour');
    saveGraph(gothenburg, path);
    const loaded = loadGraph(path);
    assert.ok(loaded.hierarchy, 'hierarchy loaded');
    for (const metric of METRICS) {
      for (const key of HIERARCHY_ARRAY_KEYS) {
        assert.deepEqual(loaded.hierarchy[metric][key], gothenburg.hierarchy![metric][key], `${metric}.${key}`);
        assert.ok(loaded.hierarchy[metric][key].buffer instanceof SharedArrayBuffer, `${metric}.${key} is shared`);
      }
    }
    for (const key of ARRAY_KEYS) assert.ok(loaded[key].buffer instanceof SharedArrayBuffer, `${key} is shared`);
    assert.ok(loaded.hierarchy.overlay?.fine, 'the cell overlay comes back with its small cells');
    assert.ok(loaded.hierarchy.overlay.durationSecond.buffer instanceof SharedArrayBuffer, 'the overlay is shared');
    const points = [{ latitude: 57.69, longitude: 11.92 }, { latitude: 57.72, longitude: 12.0 }];
    for (const calculationMode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
      assert.deepEqual(new Router(loaded).route({ points, calculationMode }).legs[0].edges, new Router(gothenburg).route({ points, calculationMode }).legs[0].edges);
    }
    // In-memory encoding is byte-identical to the file.
    assert.deepEqual(Buffer.from(encodeGraph(gothenburg)), readFileSync(path));
  });

  test('a version 1 file gets GRAPH_VERSION saying to re-import with detour import', () => {
    const bytes = Uint8Array.from(encodeGraph(gothenburg));
    new DataView(bytes.buffer).setUint32(8, 1, true);
    const path = join(dir, 'old.detour');
    writeFileSync(path, bytes);
    assert.throws(() => loadGraph(path), (err: DetourError) => err.code === 'GRAPH_VERSION' && /version 1\b.*detour import/.test(err.message));
  });

  test('a graph without a hierarchy still saves and loads; the router then uses ALT', () => {
    const plain: HierarchyGraph = new RoadGraph(gothenburg.arrays(), gothenburg.meta);
    const path = join(dir, 'plain.detour');
    saveGraph(plain, path);
    const loaded = loadGraph(path);
    assert.equal(loaded.hierarchy, undefined);
    assert.equal(new Router(loaded).search.name, 'astar');
    assert.throws(() => new Router(loaded, { engine: 'ch' }), (err: DetourError) => err.code === 'INVALID_INPUT' && /detour import/.test(err.message));
  });

  test('a shortcut whose middle node does not rank below its ends is GRAPH_CORRUPT (unpacking it might never end)', () => {
    const ch = gothenburg.hierarchy!.duration;
    const a = ch.arcMiddle.findIndex((m) => m >= 0);
    const low = arcLowerEnd(ch, a);
    const arcMiddle = Int32Array.from(ch.arcMiddle);
    arcMiddle[a] = low; // ranks the same as an end
    const damaged = withHierarchy(new RoadGraph(gothenburg.arrays(), gothenburg.meta), { ...gothenburg.hierarchy!, duration: { ...ch, arcMiddle } });
    assert.throws(() => decodeGraph(encodeGraph(damaged)), (err: DetourError) => err.code === 'GRAPH_CORRUPT' && /duration hierarchy arc \d+/.test(err.message));
  });

  test('a hierarchy arc that does not lead up in the stored rank is GRAPH_CORRUPT (an upward walk might never end)', () => {
    const ch = gothenburg.hierarchy!.distance;
    const rank = contractionOrder(ch)!;
    // An upward arc v -> x whose head has upward arcs of its own: point x's first one back at v.
    let v = 0, a = -1;
    for (; v < gothenburg.nodeCount && a < 0; v++) {
      for (let k = ch.upFirst[v]; k < ch.upFirst[v + 1]; k++) if (ch.upFirst[ch.arcNode[k] + 1] > ch.upFirst[ch.arcNode[k]]) { a = k; break; }
    }
    v--;
    const arcNode = Uint32Array.from(ch.arcNode);
    arcNode[ch.upFirst[ch.arcNode[a]]] = v;
    assert.equal(contractionOrder({ ...ch, arcNode }), undefined, 'the arcs now form a cycle');
    const damaged = withHierarchy(new RoadGraph(gothenburg.arrays(), gothenburg.meta), { ...gothenburg.hierarchy!, distance: { ...ch, arcNode, rank } });
    assert.throws(() => decodeGraph(encodeGraph(damaged)), (err: DetourError) => err.code === 'GRAPH_CORRUPT' && /distance hierarchy arc \d+/.test(err.message));
  });

  test('a damaged hierarchy section is GRAPH_CORRUPT, not a crash', () => {
    // No search indexes, so the order is the last section.
    const bytes = Uint8Array.from(encodeGraph(withHierarchy(new RoadGraph(gothenburg.arrays(), gothenburg.meta), gothenburg.hierarchy)));
    bytes[bytes.length - 200 - 4 * gothenburg.nodeCount] ^= 0x10; // in the distance hierarchy, before the order
    assert.throws(() => loadGraph((writeFileSync(join(dir, 'bad.detour'), bytes), join(dir, 'bad.detour'))), (err: DetourError) => err.code === 'GRAPH_CORRUPT');
  });
});

/**
 * A graph file over 2 GiB (one road with 2^28 + 4 interior shape points: 2 x 1 GiB of shape
 * coordinates) saves and loads. Needs about 6 GB of memory and disk and ~20 s, so it runs only
 * with DETOUR_TEST_BIG_FILE=1 (the figures in bench/RESULTS.md were checked with it).
 */
test('a graph file over 2 GiB saves and loads (DETOUR_TEST_BIG_FILE=1)', { skip: process.env.DETOUR_TEST_BIG_FILE === '1' ? false : 'set DETOUR_TEST_BIG_FILE=1 to write and load a 2.1 GB graph file' }, () => {
  const builder = new GraphBuilder();
  builder.addWay([builder.addPoint(57.7, 11.9), builder.addPoint(57.71, 11.91)], { flags: RoadFlag.FORWARD | RoadFlag.BACKWARD, speedKmh: 50, highwayClass: 5 });
  const small = builder.build({ source: 'big', attribution: '', profile: 'car', builtAt: '' });
  assert.equal(small.roadCount, 1);
  const S = 2 ** 28 + 4;
  const shapeLatE7 = new Int32Array(S).fill(toE7(57.705));
  const shapeLonE7 = new Int32Array(S);
  shapeLonE7[S - 1] = toE7(11.905);
  const big = new RoadGraph({ ...small.arrays(), shapeLatE7, shapeLonE7, roadShapeStart: Uint32Array.of(0, S) }, small.meta);
  buildHierarchy(big);
  const path = join(mkdtempSync(join(tmpdir(), 'detour-big-')), 'big.detour');
  try {
    saveGraph(big, path);
    assert.ok(statSync(path).size > 2 ** 31, `file is ${statSync(path).size} bytes`);
    const loaded = loadGraph(path);
    assert.equal(loaded.shapeLatE7.length, S);
    assert.equal(loaded.roadPointLat(0, S), 57.705);
    assert.equal(loaded.roadPointLon(0, S), 11.905);
    assert.ok(loaded.hierarchy);
    assert.deepEqual(loaded.edgeHead, small.edgeHead);
  } finally {
    rmSync(path, { force: true });
  }
});
