/**
 * Cell sizes of the overlay compared: `npm run bench:overlay-sizes -- --size 5m --pairs 100 --sizes 16384/2048,8192/512`
 * (big / small; big alone for one level). Loads a cached synthetic country (bench/scaleGraphs.ts),
 * places 10 zones of 1-5 km on and near each pair's free path as bench:scale does (and one more of
 * 1-3 km around the target for "inside"), builds each overlay in the process, and routes every pair
 * of both metrics through each in turn, in alternating order over three rounds: route times
 * (p50 / p95 of the last two rounds), nodes settled, overlay bytes per directed edge and build
 * time, and the routes' costs checked against the graph file's own overlay. Prints a table; writes nothing.
 */
import { parseArgs } from 'node:util';
import { calculateZone, Router, SnapIndex, type CalculatedZone, type LatLon, type Route } from '../src/index.js';
import { HierarchySearch } from '../src/routing/HierarchySearch.js';
import { RoadIndex } from '../src/zones/RoadIndex.js';
import { buildCellOverlay, cellOverlayBytes } from '../src/hierarchy/CellOverlay.js';
import type { OverlaySearch } from '../src/routing/OverlaySearch.js';
import { SCALE_SIZES, scaleGraph, scalePairs } from './scaleGraphs.js';
import { seededRandom } from './seededRandom.js';
import { roundZone, zonesOnPath } from './zonesOnPath.js';

const { values: opts } = parseArgs({
  options: { size: { type: 'string', default: '1m' }, pairs: { type: 'string', default: '100' }, sizes: { type: 'string', default: '16384/2048,8192' } },
});
const size = SCALE_SIZES.find((s) => s.key === opts.size);
if (!size) throw new Error(`--size: one of ${SCALE_SIZES.map((s) => s.key).join(', ')}`);
const PAIRS = Number(opts.pairs);
const log = (s: string) => process.stderr.write(`# ${s}\n`);
const quantile = (v: number[], q: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(q * v.length))];

const { graph } = await scaleGraph(size, log);
RoadIndex.for(graph);
const snapIndex = SnapIndex.for(graph);
const fileRouter = new Router(graph, { snapIndex });
const { pairs, random: rand } = scalePairs(graph, size, PAIRS);
const zoned: CalculatedZone[][] = [], inside: CalculatedZone[][] = [];
const insideRand = seededRandom(size.seed * 7 + 11);
for (let p = 0; p < PAIRS; p++) {
  let route: Route;
  try { route = fileRouter.route({ points: pairs[p], calculationMode: 'THE_FASTEST' }); } catch { continue; }
  const flat = route.legs[0].coordinates, path: LatLon[] = [];
  for (let i = 0; i < flat.length; i += 2) path.push({ latitude: flat[i], longitude: flat[i + 1] });
  zoned[p] = zonesOnPath(path, [...pairs[p], path[0], path[path.length - 1]], rand, `p${p}`).map((z) => calculateZone(graph, z));
  const to = pairs[p][1];
  inside[p] = [...zoned[p], calculateZone(graph, roundZone(`p${p}-around`, to.latitude, to.longitude, 1000 + insideRand() * 2000, insideRand))];
}

interface Config { label: string; router: Router; bytes: number; buildMillis: number }
const configs: Config[] = [];
for (const spec of opts.sizes.split(',')) {
  const [big, small] = spec.split('/').map(Number);
  const t = performance.now();
  const overlay = buildCellOverlay(graph, big, small ?? big);
  const buildMillis = performance.now() - t;
  configs.push({ label: spec, router: new Router(graph, { snapIndex, engine: new HierarchySearch(graph, overlay) }), bytes: cellOverlayBytes(overlay), buildMillis });
  log(`${spec}: built in ${(buildMillis / 1000).toFixed(1)} s`);
}

const want = new Map<string, number>();
let mismatches = 0;
const rows: string[] = [];
for (const kind of ['zoned', 'inside'] as const) {
  const times = new Map<string, number[]>(), settled = new Map<string, number>();
  for (let round = 0; round < 3; round++) {
    for (const c of round % 2 ? [...configs].reverse() : configs) {
      const t: number[] = [];
      let nodes = 0;
      for (const mode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
        for (let p = 0; p < PAIRS; p++) {
          const zones = kind === 'zoned' ? zoned[p] : inside[p];
          if (!zones) continue;
          const t0 = performance.now();
          let route: Route;
          try { route = c.router.route({ points: pairs[p], calculationMode: mode, zones }); } catch { continue; }
          t.push(performance.now() - t0);
          nodes += ((c.router.search as HierarchySearch).constrained as OverlaySearch).settledCount;
          const key = `${kind}/${mode}/${p}`, cost = mode === 'THE_FASTEST' ? route.duration : route.distance;
          if (round === 0 && c === configs[0]) want.set(key, cost);
          else if (Math.abs(want.get(key)! - cost) > 1e-9 * Math.max(1, cost)) mismatches++;
        }
      }
      if (round > 0) times.set(c.label, [...(times.get(c.label) ?? []), ...t]);
      settled.set(c.label, nodes / Math.max(1, t.length));
    }
  }
  for (const c of configs) {
    const t = times.get(c.label)!;
    rows.push(`| ${kind} | ${c.label} | ${quantile(t, 0.5).toFixed(1)} ms | ${quantile(t, 0.95).toFixed(1)} ms | ${settled.get(c.label)!.toFixed(0)} | ${(c.bytes / graph.edgeCount).toFixed(2)} B | ${(c.buildMillis / 1000).toFixed(0)} s |`);
  }
}
console.log(`Synthetic country ${size.key}: ${PAIRS} pairs, both metrics, 10 zones of 1-5 km on and near the path ("inside": one more around the target); ${mismatches} route costs differing between the overlays.\n`);
console.log('| routes | big / small cells | p50 | p95 | nodes settled (mean) | overlay per directed edge | build |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
