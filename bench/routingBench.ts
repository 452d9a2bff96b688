import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import Benchmark from 'benchmark';
import { seededRandom } from './seededRandom.js';
import ngraphPath from 'ngraph.path';
import { buildHierarchy, haversineMetres, importGeoJson, loadGraph, saveGraph, toNgraph, type RoadGraph, type Metric } from '../src/index.js';
import { AStarSearch } from '../src/routing/AStarSearch.js';
import { hierarchyByteSize } from '../src/hierarchy/ContractionHierarchy.js';
import { HierarchySearch } from '../src/routing/HierarchySearch.js';
import { Landmarks } from '../src/routing/Landmarks.js';

const require = createRequire(import.meta.url);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Runs fn `runs` times and returns the median milliseconds. */
function timeMedian(runs: number, fn: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

function heapAfter<T>(build: () => T): { value: T; bytes: number } {
  gc(); gc();
  const before = process.memoryUsage();
  const value = build();
  gc(); gc();
  const after = process.memoryUsage();
  return { value, bytes: after.heapUsed - before.heapUsed + (after.arrayBuffers - before.arrayBuffers) };
}

const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);
const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`;

export async function routingBench(): Promise<string> {
  const lines: string[] = ['## Road graph and routing (default city: Gothenburg)', ''];
  const input = require.resolve('geojson-path-finder/test/large-network.json');
  const text = readFileSync(input, 'utf8');

  // Import and load.
  let graph!: RoadGraph;
  const importMs = timeMedian(5, () => { graph = importGeoJson(JSON.parse(text)); });
  const file = join(mkdtempSync(join(tmpdir(), 'detour-bench-')), 'g.detour');
  saveGraph(graph, file);
  const loadMs = timeMedian(20, () => loadGraph(file));
  const ngBuildMs = timeMedian(5, () => toNgraph(graph));
  lines.push(`Graph: ${graph.nodeCount} nodes, ${graph.edgeCount} directed edges, ${graph.roadCount} roads, ` +
    `${(graph.totalRoadLength() / 1000).toFixed(0)} km (car profile, degree-2 chains joined).`, '');
  lines.push('| step | detour | peer | ratio |', '|---|---|---|---|');
  lines.push(`| import GeoJSON (parse + build) | ${fmt(importMs)} | | |`);
  lines.push(`| load saved graph vs build ngraph.graph from it | ${fmt(loadMs)} | ${fmt(ngBuildMs)} | ${(ngBuildMs / loadMs).toFixed(0)}x faster |`);

  // Memory, measured as heap + ArrayBuffer growth after GC: the graph alone on both sides, then
  // everything a query needs (ours: landmarks for both metrics and one search object; ngraph.path:
  // the node-state pool its aStar keeps after 1,000 queries).
  const ours = heapAfter(() => loadGraph(file));
  const theirs = heapAfter(() => toNgraph(graph));
  const LANDMARKS = 16;
  const landmarkMs = timeMedian(3, () => { new Landmarks(ours.value, 'duration', LANDMARKS); new Landmarks(ours.value, 'distance', LANDMARKS); });
  const ourQueryState = heapAfter(() => {
    const lms = [Landmarks.for(ours.value, 'duration', LANDMARKS), Landmarks.for(ours.value, 'distance', LANDMARKS)];
    return { lms, search: new AStarSearch(ours.value, { landmarks: lms }) };
  });
  lines.push(`| landmarks (${LANDMARKS} per metric, 16-bit costs, both metrics), built at first use | ${fmt(landmarkMs)} | | |`);
  lines.push(`| memory: graph (topology, costs, full road geometry) vs ngraph.graph (topology only) | ${mb(ours.bytes)} | ${mb(theirs.bytes)} | ${(ours.bytes / theirs.bytes).toFixed(2)} of peer |`);
  // Contraction hierarchy of both metrics (built at import, stored in the graph file).
  const chGraph = loadGraph(file);
  const chBuildMs = timeMedian(1, () => buildHierarchy(chGraph));
  const chBytes = hierarchyByteSize(chGraph.hierarchy!.duration) + hierarchyByteSize(chGraph.hierarchy!.distance);
  const chState = heapAfter(() => new HierarchySearch(chGraph));
  lines.push(`| contraction hierarchy, both metrics (at import, stored in the file) | ${fmt(chBuildMs)} | | |`);
  lines.push(`| memory: hierarchy of both metrics; CH search state | ${mb(chBytes)} (${(chBytes / graph.edgeCount).toFixed(1)} B per directed edge); ${mb(chState.bytes)} | | |`);
  const memoryRow = lines.length;
  lines.push('');

  // Queries: 1,000 random node pairs, node to node, same heuristic for both A* engines.
  const ng = theirs.value;
  const rand = seededRandom(2024);
  const pairs: Array<[number, number]> = [];
  graph = ours.value;
  const astar = ourQueryState.value.search;
  const ch = chState.value;
  let ngPoolBytes = 0;
  for (const metric of ['duration', 'distance'] as Metric[]) {
    const weight = graph.edgeCost(metric);
    const scale = metric === 'distance' ? 1 : 1 / graph.maxSpeedMps;
    const ngOptions = {
      oriented: true,
      distance: (_a: unknown, _b: unknown, link: { data: number }) => weight[link.data],
      heuristic: (a: { data: { lat: number; lon: number } }, b: { data: { lat: number; lon: number } }) =>
        haversineMetres(a.data.lat, a.data.lon, b.data.lat, b.data.lon) * scale,
    };
    const ngNba = ngraphPath.nba(ng, ngOptions as never);
    const ngAStar = ngraphPath.aStar(ng, ngOptions as never);
    const ourQuery = (s: number, t: number) =>
      astar.find({
        sources: [{ node: s, cost: 0, reversed: false }], targets: [{ node: t, cost: 0, reversed: false }],
        metric, targetLatitude: graph.nodeLatitude(t), targetLongitude: graph.nodeLongitude(t),
      });
    if (pairs.length === 0) {
      while (pairs.length < 1000) {
        const s = Math.floor(rand() * graph.nodeCount);
        const t = Math.floor(rand() * graph.nodeCount);
        if (s !== t && ourQuery(s, t)) pairs.push([s, t]); // connected pairs only
      }
    }
    // Costs must be identical before speed means anything.
    const pathCost = (nodes: Array<{ id: string | number }>) => {
      let sum = 0;
      for (let i = nodes.length - 1; i > 0; i--) {
        let best = Infinity;
        for (const l of ng.getLinks(nodes[i].id)!) if (l.fromId === nodes[i].id && l.toId === nodes[i - 1].id) best = Math.min(best, weight[l.data]);
        sum += best;
      }
      return sum;
    };
    // Costs first (correctness), then timing: each engine runs all pairs in its own loop after a
    // warm-up pass, so no engine's memory traffic evicts another's from the cache.
    const chQuery = (s: number, t: number) =>
      ch.find({
        sources: [{ node: s, cost: 0, reversed: false }], targets: [{ node: t, cost: 0, reversed: false }],
        metric, targetLatitude: graph.nodeLatitude(t), targetLongitude: graph.nodeLongitude(t),
      });
    let mismatches = 0;
    let chMismatches = 0;
    let settled = 0;
    let chSettled = 0;
    for (const [s, t] of pairs) {
      const mine = ourQuery(s, t)!;
      settled += astar.settledCount;
      const viaCh = chQuery(s, t);
      chSettled += ch.settledCount;
      if (!viaCh || Math.abs(viaCh.cost - mine.cost) > 1e-9 * mine.cost) chMismatches++;
      const ca = pathCost(ngAStar.find(s, t)), cn = pathCost(ngNba.find(s, t));
      if (Math.abs(ca - mine.cost) > 1e-6 * mine.cost || Math.abs(cn - mine.cost) > 1e-6 * mine.cost) mismatches++;
    }
    const perQuery = (run: (s: number, t: number) => unknown) => {
      for (const [s, t] of pairs) run(s, t);
      const times: number[] = [];
      for (const [s, t] of pairs) {
        const t0 = performance.now();
        run(s, t);
        times.push(performance.now() - t0);
      }
      return times;
    };
    const ourTimes = perQuery(ourQuery);
    const chTimes = perQuery(chQuery);
    const aTimes = perQuery((s, t) => ngAStar.find(s, t));
    const nbaTimes = perQuery((s, t) => ngNba.find(s, t));
    if (metric === 'duration') {
      // The aStar pool grows to the largest search; measure it with a fresh finder over the pairs.
      ngPoolBytes = heapAfter(() => {
        const f = ngraphPath.aStar(ng, ngOptions as never);
        for (const [s, t] of pairs) f.find(s, t);
        return f;
      }).bytes;
    }
    // benchmark.js throughput over the same pairs (one op = one query, cycling through the pairs).
    let i = 0, j = 0, k = 0;
    const suite = new Benchmark.Suite();
    const hz: Record<string, number> = {};
    suite
      .add('detour A*', () => { const [s, t] = pairs[i++ % pairs.length]; ourQuery(s, t); })
      .add('ngraph.path aStar', () => { const [s, t] = pairs[j++ % pairs.length]; ngAStar.find(s, t); })
      .add('ngraph.path nba', () => { const [s, t] = pairs[k++ % pairs.length]; ngNba.find(s, t); })
      .on('cycle', (e: { target: { name: string; hz: number } }) => { hz[e.target.name] = e.target.hz; })
      .run({ async: false, maxTime: 3 } as never);
    const mOur = median(ourTimes), mA = median(aTimes), mN = median(nbaTimes), mCh = median(chTimes);
    const label = metric === 'duration' ? 'THE_FASTEST (seconds)' : 'THE_SHORTEST (metres)';
    lines.push(`### ${label}: 1,000 random connected node pairs`, '');
    lines.push(`Costs identical to both ngraph.path engines on ${pairs.length - mismatches} of ${pairs.length} pairs; ` +
      `detour A* settles ${(settled / pairs.length).toFixed(0)} nodes per query on average.`, '');
    lines.push('| engine | median query | queries/s (benchmark.js) | detour is faster by (median) |', '|---|---|---|---|');
    lines.push(`| detour A* (CSR, typed arrays, ALT ${LANDMARKS} landmarks) | ${fmt(mOur)} | ${hz['detour A*'].toFixed(0)} | |`);
    lines.push(`| detour CH query (contraction hierarchy; ${(chSettled / pairs.length).toFixed(0)} nodes settled on average, costs equal to ALT on ${pairs.length - chMismatches} of ${pairs.length}) | ${fmt(mCh)} | | ${(mOur / mCh).toFixed(1)}x faster than detour A* (ALT) |`);
    lines.push(`| ngraph.path aStar (haversine) | ${fmt(mA)} | ${hz['ngraph.path aStar'].toFixed(0)} | ${(mA / mOur).toFixed(1)}x |`);
    lines.push(`| ngraph.path nba | ${fmt(mN)} | ${hz['ngraph.path nba'].toFixed(0)} | ${(mN / mOur).toFixed(1)}x |`);
    lines.push('', `Target (median at least 10x ngraph.path aStar, identical costs): ${mA / mOur >= 10 && mismatches === 0 ? 'met' : 'NOT met'}.`, '');
    // Routes that must detour: every road with an end within 400 m of the middle of the free
    // path is blocked (a zone on the path). CH-potential A* vs ALT A* on the same masks.
    const detours: Array<{ s: number; t: number; mask: Uint8Array }> = [];
    for (const [s, t] of pairs.slice(0, 300)) {
      const free = chQuery(s, t)!;
      if (free.edges.length < 2) continue;
      const mid = graph.edgeTail[free.edges[free.edges.length >> 1]];
      const mask = new Uint8Array(graph.roadCount);
      for (let r = 0; r < graph.roadCount; r++) {
        const a = graph.roadFrom[r], b = graph.roadTo[r];
        if (haversineMetres(graph.nodeLatitude(a), graph.nodeLongitude(a), graph.nodeLatitude(mid), graph.nodeLongitude(mid)) < 400
          || haversineMetres(graph.nodeLatitude(b), graph.nodeLongitude(b), graph.nodeLatitude(mid), graph.nodeLongitude(mid)) < 400) mask[r] = 1;
      }
      detours.push({ s, t, mask });
    }
    const blockedQuery = (engine: { find: typeof ch.find }, d: { s: number; t: number; mask: Uint8Array }) =>
      engine.find.call(engine, {
        sources: [{ node: d.s, cost: 0, reversed: false }], targets: [{ node: d.t, cost: 0, reversed: false }],
        metric, targetLatitude: graph.nodeLatitude(d.t), targetLongitude: graph.nodeLongitude(d.t), blockedRoads: d.mask,
      });
    let detourMismatches = 0, potSettled = 0, altSettled = 0;
    for (const d of detours) {
      const x = blockedQuery(ch, d), y = blockedQuery(astar, d);
      potSettled += ch.settledCount;
      altSettled += astar.settledCount;
      if ((x === null) !== (y === null) || (x && y && Math.abs(x.cost - y.cost) > 1e-9 * y.cost)) detourMismatches++;
    }
    const timeAll = (engine: { find: typeof ch.find }) => {
      for (const d of detours) blockedQuery(engine, d);
      return detours.map((d) => { const t0 = performance.now(); blockedQuery(engine, d); return performance.now() - t0; });
    };
    const mPot = median(timeAll(ch)), mAltBlocked = median(timeAll(astar));
    lines.push('', `Detours: ${detours.length} of the pairs with every road within 400 m of the middle of the free path blocked; ` +
      `costs equal on ${detours.length - detourMismatches} of ${detours.length}.`, '');
    lines.push('| engine | median query | nodes settled (mean) | |', '|---|---|---|---|');
    lines.push(`| detour CH-potential A* | ${fmt(mPot)} | ${(potSettled / detours.length).toFixed(0)} | ${(mAltBlocked / mPot).toFixed(1)}x faster than ALT |`);
    lines.push(`| detour A* (ALT) | ${fmt(mAltBlocked)} | ${(altSettled / detours.length).toFixed(0)} | |`);
    lines.push('');
  }
  const ourTotal = ours.bytes + ourQueryState.bytes;
  const theirTotal = theirs.bytes + ngPoolBytes;
  lines.splice(memoryRow, 0,
    `| memory ready to query: graph + landmarks + search state vs ngraph.graph + aStar pool | ${mb(ourTotal)} | ${mb(theirTotal)} | ${(ourTotal / theirTotal).toFixed(2)} of peer |`,
    '',
    `Target (at most a third of the peer's memory): graph ${ours.bytes / theirs.bytes <= 1 / 3 ? 'met' : 'NOT met'}; ` +
      `ready to query ${ourTotal / theirTotal <= 1 / 3 ? 'met' : 'NOT met'} (the ${LANDMARKS} landmarks per metric cost ${mb(ourQueryState.bytes)} and buy the speed-up above).`);
  return lines.join('\n');
}
