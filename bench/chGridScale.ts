/**
 * Scaling check of the contraction hierarchy on a uniform synthetic grid (the hard case for CH:
 * no road hierarchy): `node --import tsx --expose-gc bench/chGridScale.ts [side]` (default 1000,
 * i.e. about 1M nodes). Grid: side x side nodes 80 m apart with a little jitter, 10 % of links
 * removed at random, every link two-way, three road classes by row/column (as in issue 9).
 * `node --import tsx --expose-gc bench/chGridScale.ts 1000 100 duration` builds one metric only;
 * a fifth argument sets contractGraph's coreDegree (default 32), the arcs per node left at which
 * contraction stops: `... bench/chGridScale.ts 500 100 distance 64`.
 * Prints preprocessing time per metric, arcs, bytes per directed edge, and query medians of the
 * CH query, the CH-potential A* (5 % of roads blocked) and the ALT A* on the same pairs, with a
 * cost check against each other (plain Dijkstra is checked in test/hierarchy.test.ts).
 */
import { AStarSearch, CHPotentialSearch, CHQuery, contractGraph, GraphBuilder, hierarchyByteSize, RoadFlag, type Metric } from '../src/index.js';
import { seededRandom } from './seededRandom.js';

const side = Number(process.argv[2] ?? 1000);
const rand = seededRandom(7);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const b = new GraphBuilder();
const step = 80 / 111_320;
for (let y = 0; y < side; y++) {
  for (let x = 0; x < side; x++) b.addPoint(57 + y * step + (rand() - 0.5) * step * 0.2, 11 + (x * step) / 0.545 + (rand() - 0.5) * step * 0.2);
}
const classOf = (k: number) => (k % 16 === 0 ? { speedKmh: 90, highwayClass: 2 } : k % 4 === 0 ? { speedKmh: 60, highwayClass: 5 } : { speedKmh: 40, highwayClass: 8 });
const two = RoadFlag.FORWARD | RoadFlag.BACKWARD;
for (let y = 0; y < side; y++) {
  for (let x = 0; x < side; x++) {
    const v = y * side + x;
    if (x + 1 < side && rand() >= 0.1) b.addWay([v, v + 1], { flags: two, ...classOf(y) });
    if (y + 1 < side && rand() >= 0.1) b.addWay([v, v + side], { flags: two, ...classOf(x) });
  }
}
let t0 = performance.now();
const graph = b.build({ source: `grid ${side}x${side}`, attribution: '', profile: 'car', builtAt: new Date().toISOString() });
console.log(`grid ${side}x${side}: ${graph.nodeCount} nodes, ${graph.edgeCount} directed edges, built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
gc();
const rssBefore = process.memoryUsage().rss;
const hierarchy = {} as Record<Metric, ReturnType<typeof contractGraph>>;

const METRICS = (process.argv[4] ?? 'duration,distance').split(',') as Metric[];
const coreDegree = process.argv[5] === undefined ? undefined : Number(process.argv[5]);
for (const metric of METRICS) {
  t0 = performance.now();
  const cpu0 = process.cpuUsage();
  hierarchy[metric] = contractGraph(graph, metric, { coreDegree });
  const s = (performance.now() - t0) / 1000;
  const ch = hierarchy[metric];
  console.log(`${metric}: contracted in ${s.toFixed(1)} s (${(process.cpuUsage(cpu0).user / 1e6).toFixed(1)} s CPU), ${ch.arcNode.length} arcs (${(ch.arcNode.length / graph.edgeCount).toFixed(2)} per edge), ` +
    `core of ${graph.nodeCount - ch.coreRank[0]} nodes (coreDegree ${coreDegree ?? 32}), ` +
    `${(hierarchyByteSize(ch) / graph.edgeCount).toFixed(1)} B per directed edge; peak RSS growth ${((process.memoryUsage().rss - rssBefore) / 1e6).toFixed(0)} MB`);
}
if (!hierarchy.distance) hierarchy.distance = hierarchy.duration; // single-metric run: queries below use the built one
if (!hierarchy.duration) hierarchy.duration = hierarchy.distance;
graph.hierarchy = hierarchy;
const query = new CHQuery(graph, hierarchy);
const potential = new CHPotentialSearch(graph);
const alt = new AStarSearch(graph);
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
const PAIRS = Number(process.argv[3] ?? 100);
for (const metric of METRICS) {
  const blocked = new Uint8Array(graph.roadCount);
  for (let r = 0; r < graph.roadCount; r++) blocked[r] = rand() < 0.05 ? 1 : 0;
  const times = { ch: [] as number[], pot: [] as number[], alt: [] as number[], altBlocked: [] as number[] };
  let settledCh = 0, settledPot = 0, settledAlt = 0, mismatches = 0, n = 0;
  while (n < PAIRS) {
    const s = Math.floor(rand() * graph.nodeCount), t = Math.floor(rand() * graph.nodeCount);
    const q = { sources: [{ node: s, cost: 0, reversed: false }], targets: [{ node: t, cost: 0, reversed: false }], metric, targetLatitude: graph.nodeLatitude(t), targetLongitude: graph.nodeLongitude(t) };
    let a = performance.now();
    const c = query.find(q.sources, q.targets, metric);
    times.ch.push(performance.now() - a);
    if (!c) continue;
    n++;
    settledCh += query.settledCount;
    a = performance.now();
    const l = alt.find(q);
    times.alt.push(performance.now() - a);
    settledAlt += alt.settledCount;
    a = performance.now();
    const p = potential.find({ ...q, blockedRoads: blocked });
    times.pot.push(performance.now() - a);
    settledPot += potential.settledCount;
    a = performance.now();
    const lb = alt.find({ ...q, blockedRoads: blocked });
    times.altBlocked.push(performance.now() - a);
    if (Math.abs(l!.cost - c.cost) > 1e-9 * c.cost || (p?.cost ?? -1) !== (lb?.cost ?? -1) && Math.abs((p?.cost ?? 0) - (lb?.cost ?? 0)) > 1e-9 * c.cost) mismatches++;
  }
  const f = (x: number) => `${x.toFixed(2)} ms`;
  console.log(`${metric}, ${PAIRS} pairs: CH ${f(median(times.ch))} (settles ${(settledCh / PAIRS).toFixed(0)}), ALT ${f(median(times.alt))} (settles ${(settledAlt / PAIRS).toFixed(0)}), ` +
    `ratio ${(median(times.alt) / median(times.ch)).toFixed(2)}x; 5% blocked: CH-potential A* ${f(median(times.pot))} (settles ${(settledPot / PAIRS).toFixed(0)}) vs ALT ${f(median(times.altBlocked))}; cost mismatches ${mismatches}`);
}
