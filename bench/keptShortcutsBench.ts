/**
 * Free routes with and without the kept unpacked shortcuts (ShortcutPaths), side by side in one
 * process on the same pairs: `npm run bench:kept-shortcuts -- --size 5m --pairs 300`. Loads a cached
 * synthetic country (bench/scaleGraphs.ts), warms each router up with bench:scale's 50 warm-up
 * pairs per metric, then routes the pairs of a round, both metrics, through each router in turn
 * over three rounds (alternating which goes first): p50 / p95 per round, the ratio of the
 * medians, and the bytes kept. Each round has pairs of its own (the first round's are
 * bench:scale's): a pair routed again would find its own shortcuts kept, which random traffic
 * does not. Checks that both give the same distance. Prints a table; writes nothing.
 */
import { parseArgs } from 'node:util';
import { Router, SnapIndex } from '../src/index.js';
import { HierarchySearch } from '../src/routing/HierarchySearch.js';
import type { CalculationMode } from '../src/routing/routeRequest.js';
import { SCALE_SIZES, scaleGraph, scalePairs } from './scaleGraphs.js';

const { values: opts } = parseArgs({ options: { size: { type: 'string', default: '1m' }, pairs: { type: 'string', default: '300' } } });
const size = SCALE_SIZES.find((s) => s.key === opts.size);
if (!size) throw new Error(`--size: one of ${SCALE_SIZES.map((s) => s.key).join(', ')}`);
const PAIRS = Number(opts.pairs);
const log = (s: string) => process.stderr.write(`# ${s}\n`);
const quantile = (v: number[], q: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(q * v.length))];
const ms = (x: number) => (x < 1 ? `${(x * 1000).toFixed(0)} µs` : `${x.toFixed(2)} ms`);

const { graph } = await scaleGraph(size, log);
const snapIndex = SnapIndex.for(graph);
const kept = new HierarchySearch(graph);
const routers = [
  { label: 'kept shortcuts (default)', router: new Router(graph, { snapIndex, engine: kept }) },
  { label: 'none kept', router: new Router(graph, { snapIndex, engine: new HierarchySearch(graph, undefined, 0) }) },
];
// bench:scale's warm-up pairs, and its pairs followed by those of the later rounds.
const { pairs: allPairs, warmUp } = scalePairs(graph, size, 3 * PAIRS, 50);
const MODES: CalculationMode[] = ['THE_FASTEST', 'THE_SHORTEST'];
for (const { router } of routers) for (const mode of MODES) for (const w of warmUp) { try { router.route({ points: w, calculationMode: mode }); } catch { /* warm-up only */ } }

const rows: string[] = [];
const medians: Record<string, number[]> = {};
let mismatches = 0;
for (let round = 0; round < 3; round++) {
  const pairs = allPairs.slice(round * PAIRS, (round + 1) * PAIRS);
  const order = round % 2 === 0 ? routers : [...routers].reverse();
  const distances = new Map<string, number>();
  for (const { label, router } of order) {
    for (const mode of MODES) {
      const times: number[] = [];
      for (let p = 0; p < pairs.length; p++) {
        const t = performance.now();
        let distance = NaN;
        try { distance = router.route({ points: pairs[p], calculationMode: mode }).distance; } catch { /* no route: NaN on both */ }
        times.push(performance.now() - t);
        const key = `${mode}/${p}`, other = distances.get(key);
        if (other === undefined) distances.set(key, distance);
        else if (!(other === distance || (Number.isNaN(other) && Number.isNaN(distance)))) mismatches++;
      }
      (medians[`${label}/${mode}`] ??= []).push(quantile(times, 0.5));
      rows.push(`| ${round + 1} | ${mode} | ${label} | ${ms(quantile(times, 0.5))} | ${ms(quantile(times, 0.95))} |`);
    }
  }
  log(`round ${round + 1} done`);
}
const keptBytes = kept.free.paths.distance.byteSize + kept.free.paths.duration.byteSize;
console.log(`Free routes on ${size.key} (${graph.nodeCount.toLocaleString('en')} nodes), ${PAIRS} pairs per metric and round, \`Router.route\` (snapping and geometry included):\n`);
console.log('| round | metric | router | p50 | p95 |', '\n|---|---|---|---|---|');
console.log(rows.join('\n'));
const ratio = (mode: CalculationMode) => {
  const r = medians[`none kept/${mode}`].map((x, i) => x / medians[`kept shortcuts (default)/${mode}`][i]).sort((a, b) => a - b);
  return `${r[1].toFixed(2)}x`;
};
console.log(`\nNone kept vs kept, median of the rounds' p50 ratios: THE_FASTEST ${ratio('THE_FASTEST')}, THE_SHORTEST ${ratio('THE_SHORTEST')}; ${(keptBytes / 2 ** 20).toFixed(1)} MiB kept at the end (both metrics); distances differing between the routers: ${mismatches}.`);
