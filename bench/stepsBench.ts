/**
 * What turn-by-turn steps cost a route on the synthetic countries, side by side in one process on
 * the same pairs: `npm run bench:steps -- --sizes 5m --pairs 300` (sizes `1m`, `5m`, ...). Per pair
 * and metric: `Router.route` without steps and with Portuguese steps (the order alternating pair by
 * pair), what steps add to the route (per pair, the one less the other), and the steps alone
 * (legSteps and wordSteps on the legs of the route without them, after both: warm caches, a lower
 * bound). Target (issue 41): what steps add at most 10 % of a route's time at the median. Checks that the steps of
 * each leg sum to its distance and that both routes are the same. Writes its section of
 * bench/RESULTS.md per size (unless --no-write).
 */
import { parseArgs } from 'node:util';
import { Router } from '../src/index.js';
import type { CalculationMode } from '../src/routing/routeRequest.js';
import { roadBearings } from '../src/graph/roadBearings.js';
import { legSteps, type StepLeg } from '../src/routing/steps.js';
import { wordSteps } from '../src/routing/stepTexts.js';
import { updateResults } from './results.js';
import { parseSizes, scaleGraph, scalePairs } from './scaleGraphs.js';
import { ms, quantile } from './stats.js';

const { values: opts } = parseArgs({
  options: { sizes: { type: 'string', default: '1m' }, pairs: { type: 'string', default: '300' }, 'no-write': { type: 'boolean', default: false } },
});
const PAIRS = Number(opts.pairs);
const MODES: CalculationMode[] = ['THE_FASTEST', 'THE_SHORTEST'];
const log = (s: string) => process.stderr.write(`# ${s}\n`);

for (const size of parseSizes(opts.sizes!)) {
  const { graph } = await scaleGraph(size, log);
  const router = new Router(graph);
  const { pairs, warmUp } = scalePairs(graph, size, PAIRS, 50);
  for (const mode of MODES) for (const w of warmUp) { try { router.route({ points: w, calculationMode: mode, steps: 'pt_BR' }); } catch { /* warm-up only */ } }
  const rows: string[] = [];
  const summary: string[] = [];
  let differ = 0, untiled = 0;
  for (const mode of MODES) {
    const plain: number[] = [], worded: number[] = [], added: number[] = [], alone: number[] = [], share: number[] = [];
    let steps = 0, edges = 0, legs = 0;
    pairs.forEach((points, p) => {
      const timed = (withSteps: boolean) => {
        const t = performance.now();
        try {
          const route = router.route({ points, calculationMode: mode, ...(withSteps && { steps: 'pt_BR' as const }) });
          return { route, millis: performance.now() - t };
        } catch {
          return undefined;
        }
      };
      const [a, b] = p % 2 === 0 ? [timed(false), timed(true)] : [timed(true), timed(false)].reverse();
      if (!a || !b) return;
      plain.push(a.millis);
      worded.push(b.millis);
      added.push(b.millis - a.millis);
      if (a.route.distance !== b.route.distance) differ++;
      const t = performance.now();
      const made = a.route.legs.map((leg, i) => {
        const s = legSteps(graph, leg as unknown as StepLeg, i === a.route.legs.length - 1);
        wordSteps(s, 'pt_BR', i, a.route.legs.length, graph.roadLabel);
        return s;
      });
      const stepMillis = performance.now() - t;
      alone.push(stepMillis);
      share.push(stepMillis / a.millis);
      made.forEach((s, i) => {
        const leg = a.route.legs[i];
        if (Math.abs(s.reduce((sum, x) => sum + x.distance, 0) - leg.distance) > 1e-6 * Math.max(1, leg.distance)) untiled++;
        steps += s.length;
        edges += leg.edges.length;
        legs++;
      });
    });
    const p50Share = quantile(added, 0.5) / quantile(plain, 0.5), aloneShare = quantile(alone, 0.5) / quantile(plain, 0.5);
    rows.push(`| ${mode} | ${plain.length} | ${ms(quantile(plain, 0.5))} | ${ms(quantile(worded, 0.5))} | ${ms(quantile(added, 0.5))} | ${(100 * p50Share).toFixed(1)} % | ${ms(quantile(alone, 0.5))} | ${ms(quantile(alone, 0.95))} | ${(100 * aloneShare).toFixed(1)} % | ${(100 * quantile(share, 0.5)).toFixed(1)} % | ${(steps / legs).toFixed(1)} | ${Math.round(edges / legs)} |`);
    summary.push(`${mode} ${(100 * p50Share).toFixed(1)} %`);
  }
  const labelBytes = graph.roadLabel.byteLength + graph.labelBytes.byteLength + graph.labelStart.byteLength;
  const bearingBytes = roadBearings(graph).byteLength;
  const section = [
    `## Turn-by-turn steps: synthetic country ${size.key}`,
    '',
    `\`npm run bench:steps -- --sizes ${size.key} --pairs ${PAIRS}\` (${graph.nodeCount.toLocaleString('en')} nodes; bench:scale's pairs and warm-up). Free routes (\`Router.route\`, snapping and geometry included) without steps and with Portuguese steps, the order alternating pair by pair; "steps in the route" is, per pair, the route with steps less the route without them; "steps alone" is legSteps and wordSteps on the legs of the route without them, after both routes (the roads' labels, flags and bearings then in the caches: a lower bound). Target: steps at most 10 % of a route's time at the median (steps in the route, p50, over the route's p50): ${summary.join(', ')} (${summary.every((s) => Number(s.split(' ')[1]) <= 10) ? 'met' : 'missed'}).`,
    '',
    '| metric | routes | route p50 | route with steps p50 | steps in the route p50 | / route p50 | steps alone p50 | steps alone p95 | / route p50 | median of steps alone / route | steps per leg | edges per leg |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Routes differing with and without steps: ${differ}; legs whose steps do not sum to their distance: ${untiled}. The roads' labels (ids and table) take ${(labelBytes / 2 ** 20).toFixed(1)} MiB, ${(100 * labelBytes / graph.byteSize()).toFixed(1)} % of the graph's arrays (${(graph.labelStart.length - 1).toLocaleString('en')} distinct labels); their bearings at both ends (roadBearings, a search index) ${(bearingBytes / 2 ** 20).toFixed(1)} MiB, ${(100 * bearingBytes / graph.byteSize()).toFixed(1)} %.`,
  ].join('\n');
  console.log(section);
  if (!opts['no-write']) updateResults(undefined, [section]);
}
