/**
 * Routes around zones with rules on the synthetic countries, side by side in one process on the
 * same pairs: `npm run bench:zone-rules -- --sizes 1m --pairs 200`. Per pair, bench:scale's ten zones
 * of 1-5 km on and beside the free path; the same zones HARD (prepared, as a service prepares them),
 * SOFT at 600 s per km (the cost of a 10-minute detour per km avoided; prepared too: their cells
 * get cliques that charge it), and HARD for heavy trucks
 * only (`vehicles.minWeight` 13) routed as a car (they do not apply) and as a truck (they do; its
 * class prepared, as a service prepares it), beside the truck around the HARD zones (the same roads closed). Target
 * (issue 42): SOFT routes at most 2x HARD ones at the median. Checks that the car's route with the
 * truck-only zones is the free one and the truck's the HARD one. Writes its section of
 * bench/RESULTS.md per size (unless --no-write).
 */
import { parseArgs } from 'node:util';
import { Router, vehicleOf, type CalculatedZone, type Route } from '../src/index.js';
import type { CalculationMode } from '../src/routing/routeRequest.js';
import { updateResults } from './results.js';
import { parseSizes, scaleGraph, scalePairs } from './scaleGraphs.js';
import { seededRandom } from './seededRandom.js';
import { ms, quantile } from './stats.js';
import { zonesOnFreeRoute } from './zonesOnPath.js';

const { values: opts } = parseArgs({
  options: { sizes: { type: 'string', default: '1m' }, pairs: { type: 'string', default: '200' }, 'no-write': { type: 'boolean', default: false } },
});
const PAIRS = Number(opts.pairs);
const log = (s: string) => process.stderr.write(`# ${s}\n`);

for (const size of parseSizes(opts.sizes!)) {
  const { graph } = await scaleGraph(size, log);
  const router = new Router(graph);
  const { pairs, warmUp } = scalePairs(graph, size, PAIRS, 50);
  for (const w of warmUp) { try { router.route({ points: w }); } catch { /* warm-up only */ } }
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!;
  router.prepareVehicle(truck); // as a service prepares the SDK's type
  const rand = seededRandom(size.seed + 42);
  type Case = { points: typeof pairs[number]; hard: CalculatedZone[]; soft: CalculatedZone[]; trucks: CalculatedZone[] };
  const cases: Case[] = [];
  for (const points of pairs) {
    const hard = zonesOnFreeRoute(router, points, rand, `z${cases.length}`);
    if (!hard) continue;
    const soft = hard.map((z) => ({ ...z, zone: { ...z.zone, avoidance: { mode: 'SOFT' as const, costPerKm: 600 } } }));
    const trucks = hard.map((z) => ({ ...z, zone: { ...z.zone, vehicles: { minWeight: 13 } } }));
    router.prepareZones(hard);
    router.prepareZones(soft);
    router.prepareZones(trucks);
    cases.push({ points, hard, soft, trucks });
  }
  log(`${size.key}: ${cases.length} pairs with zones`);
  const rows: string[] = [];
  const verdicts: string[] = [];
  let wrong = 0;
  for (const mode of ['THE_FASTEST', 'THE_SHORTEST'] as CalculationMode[]) {
    const times: Record<string, number[]> = { hard: [], soft: [], carTrucksOnly: [], truckTrucksOnly: [], truckHard: [], free: [] };
    let softEntered = 0;
    for (const c of cases) {
      const timed = (key: string, run: () => Route): Route | undefined => {
        const t = performance.now();
        try { const r = run(); times[key].push(performance.now() - t); return r; } catch { times[key].push(performance.now() - t); return undefined; }
      };
      const free = timed('free', () => router.route({ points: c.points, calculationMode: mode }));
      timed('hard', () => router.route({ points: c.points, calculationMode: mode, zones: c.hard }));
      const soft = timed('soft', () => router.route({ points: c.points, calculationMode: mode, zones: c.soft }));
      const car = timed('carTrucksOnly', () => router.route({ points: c.points, calculationMode: mode, zones: c.trucks }));
      const heavy = timed('truckTrucksOnly', () => router.route({ points: c.points, calculationMode: mode, zones: c.trucks, vehicle: truck }));
      const truckHard = timed('truckHard', () => router.route({ points: c.points, calculationMode: mode, zones: c.hard, vehicle: truck }));
      if (car?.distance !== free?.distance || heavy?.distance !== truckHard?.distance) wrong++;
      if (soft?.legs[0].zonesEntered?.length) softEntered++;
    }
    const p50 = (k: string) => quantile(times[k], 0.5);
    rows.push(`| ${mode} | ${cases.length} | ${ms(p50('free'))} | ${ms(p50('hard'))} | ${ms(p50('soft'))} | ${ms(quantile(times.soft, 0.95))} | ${(p50('soft') / p50('hard')).toFixed(2)}x | ${softEntered} | ${ms(p50('carTrucksOnly'))} | ${ms(p50('truckTrucksOnly'))} | ${ms(p50('truckHard'))} |`);
    verdicts.push(`${mode} ${(p50('soft') / p50('hard')).toFixed(2)}x`);
  }
  const section = [
    `## Zone rules: synthetic country ${size.key}`,
    '',
    `\`npm run bench:zone-rules -- --sizes ${size.key} --pairs ${PAIRS}\` (${graph.nodeCount.toLocaleString('en')} nodes; bench:scale's pairs, ten zones of 1-5 km on and beside each free path, prepared as a service prepares them). Routes (\`Router.route\`) around the zones HARD, SOFT at 600 s or m per km, and HARD for heavy trucks only (\`vehicles.minWeight\` 13) as a car (they do not apply) and as a truck (its class prepared, as a service prepares it). Target: SOFT at most 2x HARD at the median: ${verdicts.join(', ')} (${verdicts.every((v) => Number(v.split(' ')[1].slice(0, -1)) <= 2) ? 'met' : 'missed'}).`,
    '',
    '| metric | pairs | free p50 | HARD p50 | SOFT p50 | SOFT p95 | SOFT / HARD | SOFT zones entered | trucks-only zones, car p50 | trucks-only zones, truck p50 | HARD zones, truck p50 |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Routes where the car's route with the trucks-only zones is not the free one, or the truck's not the one around the HARD zones: ${wrong}.`,
  ].join('\n');
  console.log(section);
  if (!opts['no-write']) updateResults(undefined, [section]);
}
