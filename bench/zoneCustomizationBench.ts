/**
 * What a route around zones it has never seen costs, and what route()'s customization buys with
 * each zone's rent (Router's ROUTE_CUSTOMIZATION_SHARE):
 * `npm run bench:zone-customization -- --size 1m --pairs 100 --passes 4`.
 * Loads a cached synthetic graph (bench/scaleGraphs.ts); per pair, bench:scale's ten 1-5 km zones
 * on and near its free path, calculated, never customized beforehand. Three routers of their own
 * engines, the same pairs in the same order, each pair's zones new to each:
 * - the default: route() customizes what earlier routes around the same zones paid for;
 * - customizing first: prepareZones(zones), then route(), timed together (what route() did before
 *   it paid by rent);
 * - walking only: no cliques kept (zoneCliqueBytes 0).
 * Then every router routes the same pairs around the same zones again, `--passes` times in all
 * (default 4: routes paying rent, then around what it bought). Also the calibration the rent rests
 * on: a walking search's time per node settled, and a zone's own customization's time per unit of
 * PathSearch.customizeWork. Checks that the routers give the same distances. Prints a table;
 * writes nothing.
 */
import { parseArgs } from 'node:util';
import { calculateZone, hierarchyEngine, MAX_CUSTOMIZED_CELLS, Router, SnapIndex, type CalculatedZone, type LatLon, type PathSearch } from '../src/index.js';
import { ROUTE_CUSTOMIZATION_SHARE } from '../src/routing/Router.js';
import { SCALE_SIZES, scaleGraph, scalePairs } from './scaleGraphs.js';
import { seededRandom } from './seededRandom.js';
import { zonesOnPath } from './zonesOnPath.js';

const { values: opts } = parseArgs({ options: { size: { type: 'string', default: '1m' }, pairs: { type: 'string', default: '100' }, passes: { type: 'string', default: '4' } } });
const size = SCALE_SIZES.find((s) => s.key === opts.size);
if (!size) throw new Error(`--size: one of ${SCALE_SIZES.map((s) => s.key).join(', ')}`);
const PAIRS = Number(opts.pairs);
if (!Number.isInteger(PAIRS) || PAIRS < 1) throw new Error(`--pairs: a positive integer, got ${opts.pairs}`);
const PASSES = Number(opts.passes);
if (!Number.isInteger(PASSES) || PASSES < 1) throw new Error(`--passes: a positive integer, got ${opts.passes}`);
const log = (s: string) => process.stderr.write(`# ${s}\n`);
const quantile = (v: number[], q: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(q * v.length))];
const ms = (x: number) => (x < 1 ? `${(x * 1000).toFixed(0)} µs` : `${x.toFixed(1)} ms`);

const { graph } = await scaleGraph(size, log);
const snapIndex = SnapIndex.for(graph);
const { pairs, warmUp } = scalePairs(graph, size, PAIRS, 50);

interface Runner { label: string; router: Router; engine: PathSearch; before?: (zones: CalculatedZone[]) => void }
const runner = (label: string, zoneCliqueBytes?: number, before?: Runner['before']): Runner => {
  const engine = hierarchyEngine(graph);
  return { label, engine, router: new Router(graph, { snapIndex, engine, zoneCliqueBytes }), before };
};
const runners: Runner[] = [
  runner("default (each zone's rent)"),
  runner('customizing first (prepareZones, then route)', undefined, (zones) => runners[1].router.prepareZones(zones)),
  runner('walking only (no cliques kept)', 0),
];
for (const { router } of runners) for (const w of warmUp) { try { router.route({ points: w, calculationMode: 'THE_FASTEST' }); } catch { /* warm-up only */ } }

// Each pair's zones, from its free THE_FASTEST path (bench:scale's way, its own random sequence).
const rand = seededRandom(size.seed * 7 + 13);
const pairZones: CalculatedZone[][] = [];
for (let p = 0; p < pairs.length; p++) {
  let flat: ArrayLike<number>;
  try { flat = runners[2].router.route({ points: pairs[p], calculationMode: 'THE_FASTEST' }).legs[0].coordinates; } catch { continue; }
  const path: LatLon[] = [];
  for (let i = 0; i < flat.length; i += 2) path.push({ latitude: flat[i], longitude: flat[i + 1] });
  pairZones[p] = zonesOnPath(path, [...pairs[p], path[0], path[path.length - 1]], rand, `p${p}`).map((z) => calculateZone(graph, z));
}
log(`${pairZones.filter(Boolean).length} pairs with zones`);

// Every pass, each router in turn per pair (the same machine phase for all three).
const times = runners.map(() => Array.from({ length: PASSES }, () => [] as number[]));
const distances = new Map<string, number>();
let mismatches = 0;
const nsPerSettled: number[] = [];
for (let pass = 0; pass < PASSES; pass++) {
  for (let p = 0; p < pairs.length; p++) {
    const zones = pairZones[p];
    if (!zones) continue;
    // Rotated per pair: a router after another on the same pair finds its roads in cache.
    for (let k = 0; k < runners.length; k++) {
      const r = (p + k) % runners.length;
      const { router, engine, before } = runners[r];
      const t0 = performance.now();
      before?.(zones);
      let distance = NaN;
      try { distance = router.route({ points: pairs[p], calculationMode: 'THE_FASTEST', zones }).distance; } catch { /* no route: NaN */ }
      const took = performance.now() - t0;
      times[r][pass].push(took);
      if (r === 2 && pass === 0 && engine.settledCount) nsPerSettled.push((took * 1e6) / engine.settledCount);
      const key = `${pass}/${p}`, other = distances.get(key);
      if (other === undefined) distances.set(key, distance);
      else if (!(other === distance || (Number.isNaN(other) && Number.isNaN(distance)))) mismatches++;
    }
  }
  log(`pass ${pass + 1} done`);
}

// A zone's own cells customized directly (what customizeWork prices), on a fresh engine: time per unit.
const probe = hierarchyEngine(graph);
const mask = new Uint8Array(graph.roadCount);
const nsPerUnit: number[] = [];
for (const zones of pairZones) {
  for (const z of zones ?? []) {
    const work = probe.customizeWork?.(z.roads, MAX_CUSTOMIZED_CELLS);
    if (!work) continue;
    for (const road of z.roads) mask[road] = 1;
    const t0 = performance.now();
    probe.customize?.(z.roads, mask, MAX_CUSTOMIZED_CELLS);
    nsPerUnit.push(((performance.now() - t0) * 1e6) / work);
    for (const road of z.roads) mask[road] = 0;
  }
}

const routed = times[0][0].length;
console.log(`THE_FASTEST on ${size.key} (${graph.nodeCount.toLocaleString('en')} nodes), ${routed} pairs, each around its ten 1-5 km zones, \`Router.route\` (snapping and geometry included):\n`);
const passes = [...Array(PASSES).keys()];
console.log(`| router | ${passes.map((k) => `route ${k + 1} around a pair's zones: p50 | p95`).join(' | ')} | zones with cliques at the end |`);
console.log(`|---|${passes.map(() => '---|---|').join('')}---|`);
runners.forEach(({ label, router }, r) => {
  console.log(`| ${label} | ${times[r].map((t) => `${ms(quantile(t, 0.5))} | ${ms(quantile(t, 0.95))}`).join(' | ')} | ${router.preparedZones.zones} |`);
});
const perSettled = quantile(nsPerSettled, 0.5), perUnit = nsPerUnit.length ? quantile(nsPerUnit, 0.5) : NaN;
console.log(`\nWalking around zones: ${(perSettled / 1000).toFixed(2)} µs per node settled (median over the first pass's routes). A zone's own cells customized: ${nsPerUnit.length ? `${perUnit.toFixed(0)} ns per unit of customizeWork (median over ${nsPerUnit.length} zones); ratio ${(perSettled / perUnit).toFixed(1)}` : 'none customized'} (ROUTE_CUSTOMIZATION_SHARE: ${ROUTE_CUSTOMIZATION_SHARE}). Distances differing between the routers: ${mismatches}.`);
