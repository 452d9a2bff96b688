/**
 * What a route around zones costs when the zones were not prepared (route() walks their cells) and
 * when they were, as the service prepares each zone once calculated (Router.prepareZones per zone,
 * outside the timing), or as one set: `npm run bench:zone-customization -- --size 1m --pairs 100 --passes 2`.
 * Loads a cached synthetic graph (bench/scaleGraphs.ts); per pair, bench:scale's ten 1-5 km zones
 * on and near its free path, calculated. Three routers of their own engines, one after the other,
 * each routing the same pairs in the same order `--passes` times. Checks that the routers give the
 * same distances. Prints a table; writes nothing.
 */
import { parseArgs } from 'node:util';
import { calculateZone, Router, SnapIndex, type CalculatedZone, type LatLon } from '../src/index.js';
import { HierarchySearch } from '../src/routing/HierarchySearch.js';
import { SCALE_SIZES, scaleGraph, scalePairs } from './scaleGraphs.js';
import { seededRandom } from './seededRandom.js';
import { zonesOnPath } from './zonesOnPath.js';

const { values: opts } = parseArgs({ options: { size: { type: 'string', default: '1m' }, pairs: { type: 'string', default: '100' }, passes: { type: 'string', default: '2' } } });
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

interface Runner { label: string; router: Router; prepare?: (zones: CalculatedZone[]) => void }
const runner = (label: string, prepare?: Runner['prepare']): Runner => ({ label, router: new Router(graph, { snapIndex, engine: new HierarchySearch(graph) }), prepare });
const runners: Runner[] = [
  runner('zones not prepared (route() walks their cells)'),
  runner('each zone prepared alone, as the service does', (zones) => { for (const z of zones) runners[1].router.prepareZones([z]); }),
  runner('the ten zones prepared as one set', (zones) => runners[2].router.prepareZones(zones)),
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

// One router after the other, the unprepared one first: cliques other routers hold in the same
// process (hundreds of MB here) slowed interleaved walking routes about twofold.
const times = runners.map(() => Array.from({ length: PASSES }, () => [] as number[]));
const prepareMillis: number[] = [];
const distances = new Map<string, number>();
let mismatches = 0;
for (const [r, { router, prepare }] of runners.entries()) {
  const t0 = performance.now();
  if (prepare) for (const zones of pairZones) if (zones) prepare(zones);
  prepareMillis[r] = performance.now() - t0;
  for (let pass = 0; pass < PASSES; pass++) {
    for (let p = 0; p < pairs.length; p++) {
      const zones = pairZones[p];
      if (!zones) continue;
      const t1 = performance.now();
      let distance = NaN;
      try { distance = router.route({ points: pairs[p], calculationMode: 'THE_FASTEST', zones }).distance; } catch { /* no route: NaN */ }
      times[r][pass].push(performance.now() - t1);
      const key = `${pass}/${p}`, other = distances.get(key);
      if (other === undefined) distances.set(key, distance);
      else if (!(other === distance || (Number.isNaN(other) && Number.isNaN(distance)))) mismatches++;
    }
  }
  log(`${runners[r].label} done`);
}

const routed = times[0][0].length;
console.log(`THE_FASTEST on ${size.key} (${graph.nodeCount.toLocaleString('en')} nodes), ${routed} pairs, each around its ten 1-5 km zones, \`Router.route\` (snapping and geometry included):\n`);
const passes = [...Array(PASSES).keys()];
console.log(`| router | preparing every pair's zones | ${passes.map((k) => `pass ${k + 1}: p50 | p95`).join(' | ')} | zones / shared cells / big cells with cliques |`);
console.log(`|---|---|${passes.map(() => '---|---|').join('')}---|`);
runners.forEach(({ label, router }, r) => {
  const held = router.preparedZones;
  console.log(`| ${label} | ${runners[r].prepare ? `${(prepareMillis[r] / 1000).toFixed(1)} s` : '-'} | ${times[r].map((t) => `${ms(quantile(t, 0.5))} | ${ms(quantile(t, 0.95))}`).join(' | ')} | ${held.zones} / ${held.sharedCells} / ${held.bigCells} |`);
});
console.log(`\nDistances differing between the routers: ${mismatches}.`);
