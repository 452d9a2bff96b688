/**
 * Routes and matrices around zones with a schedule on the synthetic countries, side by side in
 * one process on the same pairs: `npm run bench:zone-schedule -- --sizes 1m,5m --pairs 100`. Per
 * pair, bench:scale's ten zones of 1-5 km on and beside the free path, HARD (prepared, as a
 * service prepares them) and the same zones with a ZMRC-like schedule (weekdays 05-21, Saturdays
 * 10-14, in America/Sao_Paulo), each route leaving at a seeded instant of one week. Target (issue
 * 42): scheduled routes at most 2x the HARD ones at the median; `--oracle N` pairs checked against
 * a time-dependent Dijkstra (bench/plainDijkstra.ts, waiting allowed); a `--matrix N` x N matrix
 * around ten scheduled zones against the same matrix around them HARD (target: at most 2x).
 * Writes its section of bench/RESULTS.md per size (unless --no-write).
 */
import { parseArgs } from 'node:util';
import { Router, type CalculatedZone, type LatLon, type Route } from '../src/index.js';
import type { CalculationMode } from '../src/routing/routeRequest.js';
import { sourceEndpoints, targetEndpoints, directCost } from '../src/routing/endpoints.js';
import { scheduleStates } from '../src/routing/RoadSchedule.js';
import { scheduleWaits } from '../test/support/helpers.js';
import type { ZoneSchedule } from '../src/zones/schedule.js';
import { PlainDijkstra } from './plainDijkstra.js';
import { updateResults } from './results.js';
import { parseSizes, scaleGraph, scalePairs } from './scaleGraphs.js';
import { seededRandom } from './seededRandom.js';
import { ms, quantile } from './stats.js';
import { zonesOnFreeRoute } from './zonesOnPath.js';

const { values: opts } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1m' }, pairs: { type: 'string', default: '100' }, oracle: { type: 'string', default: '20' },
    matrix: { type: 'string', default: '20' }, 'no-write': { type: 'boolean', default: false },
  },
});
const PAIRS = Number(opts.pairs), ORACLE = Number(opts.oracle), MATRIX = Number(opts.matrix);
/** Elements of each scheduled matrix checked against the oracle. */
const MATRIX_ORACLE = 10;
const log = (s: string) => process.stderr.write(`# ${s}\n`);
const ZMRC: ZoneSchedule = {
  timeZone: 'America/Sao_Paulo',
  windows: [{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI'], from: '05:00', to: '21:00' }, { days: ['SAT'], from: '10:00', to: '14:00' }],
};
const WEEK_START = Date.parse('2026-12-07T00:00:00-03:00');

for (const size of parseSizes(opts.sizes!)) {
  const { graph } = await scaleGraph(size, log);
  const router = new Router(graph);
  router.prepareMatrices(); // as a service does before its first matrix
  const { pairs, warmUp } = scalePairs(graph, size, PAIRS, 50);
  for (const w of warmUp) { try { router.route({ points: w }); } catch { /* warm-up only */ } }
  const rand = seededRandom(size.seed + 4242);
  type Case = { points: LatLon[]; hard: CalculatedZone[]; timed: CalculatedZone[]; departure: number };
  const cases: Case[] = [];
  for (const points of pairs) {
    const hard = zonesOnFreeRoute(router, points, rand, `z${cases.length}`);
    if (!hard) continue;
    router.prepareZones(hard);
    const timed = hard.map((z) => ({ ...z, zone: { ...z.zone, schedule: ZMRC } }));
    router.prepareZones(timed); // as a service prepares every calculated zone
    cases.push({ points, hard, timed, departure: WEEK_START + Math.floor(rand() * 7 * 86_400) * 1000 });
  }
  log(`${size.key}: ${cases.length} pairs with zones`);
  const rows: string[] = [];
  const verdicts: string[] = [];
  for (const mode of ['THE_FASTEST', 'THE_SHORTEST'] as CalculationMode[]) {
    const times: Record<string, number[]> = { free: [], hard: [], timed: [] };
    let waited = 0, differs = 0;
    for (const c of cases) {
      const timedRun = (key: string, run: () => Route): Route | undefined => {
        const t = performance.now();
        try { const r = run(); times[key].push(performance.now() - t); return r; } catch { times[key].push(performance.now() - t); return undefined; }
      };
      const free = timedRun('free', () => router.route({ points: c.points, calculationMode: mode, departure: c.departure }));
      const hard = timedRun('hard', () => router.route({ points: c.points, calculationMode: mode, zones: c.hard, departure: c.departure }));
      const timed = timedRun('timed', () => router.route({ points: c.points, calculationMode: mode, zones: c.timed, departure: c.departure }));
      if (timed?.legs[0].waits) waited++;
      if (timed && free && hard && (timed.duration !== hard.duration)) differs++;
    }
    const p50 = (k: string) => quantile(times[k], 0.5);
    const ratio = p50('timed') / p50('hard');
    rows.push(`| ${mode} | ${cases.length} | ${ms(p50('free'))} | ${ms(p50('hard'))} | ${ms(p50('timed'))} | ${ms(quantile(times.timed, 0.95))} | ${ratio.toFixed(2)}x | ${waited} | ${differs} |`);
    verdicts.push(`${mode} ${ratio.toFixed(2)}x`);
  }
  // The oracle: the first pairs' THE_FASTEST arrivals.
  const dijkstra = new PlainDijkstra(graph);
  let checked = 0, mismatches = 0;
  const oracleStarted = performance.now();
  for (const c of cases.slice(0, ORACLE)) {
    const [a, b] = router.snapStops(c.points);
    const want = Math.min(
      dijkstra.cost(sourceEndpoints(graph, a, 'duration'), targetEndpoints(graph, b, 'duration'), 'duration', undefined, scheduleWaits(graph, c.timed, c.departure)),
      directCost(graph, a, b, 'duration').cost,
    );
    let got = Infinity;
    try { got = router.route({ points: c.points, zones: c.timed, departure: c.departure }).duration; } catch { /* none: Infinity */ }
    checked++;
    if (!(Math.abs(got - want) <= 1e-6 * want + 1e-3) && !(got === Infinity && want === Infinity)) {
      mismatches++;
      log(`oracle mismatch: route ${got} s, oracle ${want} s`);
    }
  }
  log(`oracle: ${checked} pairs in ${((performance.now() - oracleStarted) / 1000).toFixed(1)} s, ${mismatches} mismatches`);
  // A matrix around the first case's ten zones, HARD and scheduled: leaving while they are active
  // (Monday 10:00), ten minutes before they open (Monday 20:50: most elements arrive after 21:00),
  // and ten minutes before they close (Monday 04:50). Sampled elements against the oracle.
  const matrixRows: string[] = [];
  let matrixChecked = 0, matrixMismatches = 0;
  if (MATRIX > 0 && cases.length > 0) {
    const origins = cases.slice(0, MATRIX).map((c) => c.points[0]);
    const destinations = cases.slice(0, MATRIX).map((c) => c.points[1]);
    const zoneCase = cases[0];
    /** Milliseconds, or the error code it was refused with. */
    const clock = (run: () => unknown): number | string => {
      const t = performance.now();
      try { run(); return performance.now() - t; } catch (e) { return String((e as { code?: string }).code); }
    };
    const route = router.route.bind(router);
    let routed = 0;
    router.route = (request) => { routed++; return route(request); };
    const sample = seededRandom(size.seed + 77);
    router.matrix({ origins, destinations, zones: zoneCase.hard }); // warm-up: the first matrix around zones
    for (const [label, departure] of [['Monday 10:00', WEEK_START + 10 * 3_600_000], ['Monday 20:50', WEEK_START + (20 * 60 + 50) * 60_000], ['Monday 04:50', WEEK_START + (4 * 60 + 50) * 60_000]] as const) {
      let later = 0;
      const hardMs = clock(() => {
        const m = router.matrix({ origins, destinations, zones: zoneCase.hard, departure });
        const { until } = scheduleStates(zoneCase.timed, departure);
        later = m.duration.filter((d) => d > until).length;
      }) as number;
      routed = 0;
      let m: ReturnType<Router['matrix']> | undefined;
      const timed = clock(() => { m = router.matrix({ origins, destinations, zones: zoneCase.timed, departure }); });
      const timedMs = typeof timed === 'number' ? ms(timed) : `refused (${timed})`;
      const ratio = typeof timed === 'number' ? `${(timed / hardMs).toFixed(2)}x` : '-';
      let checked = 0, differ = 0;
      if (m) {
        const waits = scheduleWaits(graph, zoneCase.timed, departure);
        for (let k = 0; k < MATRIX_ORACLE; k++) {
          const i = Math.floor(sample() * m.duration.length), o = Math.floor(i / destinations.length), d = i % destinations.length;
          const [a, b] = router.snapStops([origins[o], destinations[d]]);
          const want = Math.min(dijkstra.cost(sourceEndpoints(graph, a, 'duration'), targetEndpoints(graph, b, 'duration'), 'duration', undefined, waits), directCost(graph, a, b, 'duration').cost);
          const got = m.failures.has(i) ? Infinity : m.duration[i];
          checked++;
          if (!(Math.abs(got - want) <= 1e-6 * want + 1e-3) && !(got === Infinity && want === Infinity)) {
            differ++;
            log(`matrix oracle mismatch (${label}, element ${o},${d}): ${got} s, oracle ${want} s`);
          }
        }
      }
      matrixChecked += checked;
      matrixMismatches += differ;
      const { active } = scheduleStates(zoneCase.timed, departure);
      matrixRows.push(`| ${label} | ${active.every((x) => x) ? 'active' : active.some((x) => x) ? 'some active' : 'inactive'} | ${origins.length} x ${destinations.length} | ${later} | ${m ? routed : '-'} | ${ms(hardMs)} | ${timedMs} | ${ratio} | ${checked} / ${differ} |`);
    }
    router.route = route;
  }
  const section = [
    `## Zone schedules: synthetic country ${size.key}`,
    '',
    `\`npm run bench:zone-schedule -- --sizes ${size.key} --pairs ${PAIRS} --oracle ${ORACLE} --matrix ${MATRIX}\` (${graph.nodeCount.toLocaleString('en')} nodes; bench:scale's pairs, ten zones of 1-5 km on and beside each free path). Routes (\`Router.route\`) around the zones HARD (prepared, as a service prepares them) and with a ZMRC-like schedule (weekdays 05-21, Saturdays 10-14, America/Sao_Paulo), each pair leaving at a seeded instant of one week. Target: scheduled at most 2x HARD at the median: ${verdicts.join(', ')} (${verdicts.every((v) => Number(v.split(' ')[1].slice(0, -1)) <= 2) ? 'met' : 'missed'}).`,
    '',
    '| metric | pairs | free p50 | HARD p50 | scheduled p50 | scheduled p95 | scheduled / HARD | routes that wait | durations unlike HARD |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `THE_FASTEST against a time-dependent Dijkstra that may wait (bench/plainDijkstra.ts): ${checked} pairs, ${mismatches} differences.`,
    ...(matrixRows.length > 0 ? [
      '',
      `Matrices (THE_FASTEST) around the first pair's ten zones, HARD and scheduled (target: at most 2x). The zones share one timeline, so many-to-many passes split at their border answer every element arriving before their second change, or third when closed at the departure (docs/ROUTING.md); elements with a stop on a zone's road, or arriving later, are routes. Sampled elements against the time-dependent Dijkstra: ${matrixChecked} checked, ${matrixMismatches} differences.`,
      '',
      '| departure | zones then | size | elements arriving after the first change | elements routed | HARD | scheduled | scheduled / HARD | oracle checked / differences |',
      '|---|---|---|---|---|---|---|---|---|',
      ...matrixRows,
    ] : []),
  ].join('\n');
  console.log(section);
  if (!opts['no-write']) updateResults(undefined, [section]);
}
