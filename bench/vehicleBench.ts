/**
 * Trucks at country scale: `npm run bench:vehicles -- --sizes 1m,5m`. On the synthetic countries
 * (bench/scaleGraphs.ts: the tiles' own limits on heavy vehicles and a seeded share more), per size:
 * what the limits cost the graph (limited roads, their bytes), and `Router.route` p50 / p95 for a
 * car and for trucks on the same pairs, free and around 10 zones of 1-5 km on the car's free path,
 * in one process, one after the other per pair; every truck route is checked against a plain
 * Dijkstra that skips the roads the bench itself finds closed to the truck (on a sample: --check).
 * Writes the "Vehicles" section of bench/RESULTS.md (unless --no-write).
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { LimitAccess } from '../src/graph/vehicleLimits.js';
import { hierarchyByteSize } from '../src/hierarchy/ContractionHierarchy.js';
import { calculateZone, DetourError, Router, vehicleOf, type CalculatedZone, type LatLon, type RoadGraph, type Route, type Vehicle } from '../src/index.js';
import { directCost, sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';
import { classMatrixCliqueBytes } from '../src/routing/matrix.js';
import type { CalculationMode } from '../src/routing/routeRequest.js';
import { PlainDijkstra } from './plainDijkstra.js';
import { oracleHeavy, oracleTimes } from './speedOracle.js';
import { updateResults } from './results.js';
import { parseSizes, scaleGraph, scalePairs, type ScaleSize } from './scaleGraphs.js';
import { seededRandom } from './seededRandom.js';
import { close, ms, quantile } from './stats.js';
import { zonesOnPath } from './zonesOnPath.js';

const { values: opts } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1m' },
    pairs: { type: 'string', default: '200' },
    check: { type: 'string', default: '20' },
    matrix: { type: 'string', default: '50' },
    'no-write': { type: 'boolean', default: false },
  },
});
const PAIRS = Number(opts.pairs), CHECK = Number(opts.check), MATRIX = Number(opts.matrix);
const log = (s: string) => process.stderr.write(`# ${s}\n`);
/** What a route may answer for a vehicle (counted as refused); anything else is the bench's fault and stops it. */
const REFUSALS = new Set<string>(['VEHICLE_NOT_ALLOWED', 'ROUTE_NOT_FOUND']);
const MODE: CalculationMode = 'THE_FASTEST';

/** Per road: 1 where the vehicle may not drive or may drive only to a stop there (the bench's own reading of the stored limits). */
function closedRoads(graph: RoadGraph, v: Vehicle): Uint8Array {
  const closed = new Uint8Array(graph.roadCount);
  const over = (limit: number | undefined, own: number | undefined) => limit !== undefined && own !== undefined && own > limit;
  for (const r of graph.limitRoads) {
    const l = graph.roadLimits(r)!;
    const access = v.accessClass === 'hgv' ? l.hgv : v.accessClass === 'goods' ? l.goods : LimitAccess.YES;
    // A destination-only road of no length charges nothing: open, as the router reads it (vehicleRoads).
    const destination = access === LimitAccess.DESTINATION && graph.roadLengthCm[r] > 0;
    if (over(l.heightM, v.heightM) || over(l.widthM, v.widthM) || over(l.lengthM, v.lengthM) || over(l.weightT, v.weightT) ||
      over(l.axleLoadT, v.axleLoadT) || access === LimitAccess.NO || destination || (v.hazmat && l.noHazmat)) closed[r] = 1;
  }
  return closed;
}

async function benchSize(size: ScaleSize): Promise<string[]> {
  const { graph } = await scaleGraph(size, log);
  const router = new Router(graph);
  // The same truck prepared (Router.prepareVehicle) and as an arbitrary specification (a few
  // centimetres lower, so not the prepared class: its routes walk the cells of its closed roads).
  const truck = vehicleOf('TRUCK_WITH_TWO_DOUBLE_AXLES')!, heavy = vehicleOf('TRUCK_WITH_SIX_DOUBLE_AXLES')!;
  /** Per prepared class: its cells' time, bytes and count, and its own hierarchies' time and bytes (Router.prepareVehicle does both). */
  const prepared: Record<string, string> = {};
  for (const [name, v] of [['TRUCK_WITH_TWO_DOUBLE_AXLES', truck], ['TRUCK_WITH_SIX_DOUBLE_AXLES', heavy]] as const) {
    let t = performance.now();
    for (const step of router.preparingVehicle(v, Infinity)) void step;
    const cellMillis = performance.now() - t;
    const ready = router.vehicleRoads(v).prepared;
    const bytesOf = (c: { cells: Uint32Array; first: Float64Array; duration: ArrayBufferView; distance: ArrayBufferView }) => c.cells.byteLength + c.first.byteLength + c.duration.byteLength + c.distance.byteLength;
    const cliqueBytes = ready ? [ready.cliques, ...ready.bigCliques].reduce((sum, c) => sum + bytesOf(c), 0) : 0;
    const penalised = ready?.penalised;
    t = performance.now();
    const own = router.vehicleHierarchies(v)!;
    router.adoptVehicleHierarchies(v, own);
    const ownMillis = performance.now() - t;
    const ownBytes = hierarchyByteSize(own.duration) + hierarchyByteSize(own.distance);
    prepared[name] = `${(cellMillis / 1000).toFixed(1)} s, ${(cliqueBytes / 2 ** 20).toFixed(1)} MiB, ${ready?.cliques.cells.length ?? 0} cells; ` +
      `penalised ${(penalised ? bytesOf(penalised) / 2 ** 20 : 0).toFixed(1)} MiB, ${penalised?.cells.length ?? 0} cells | ` +
      `${(ownMillis / 1000).toFixed(1)} s, ${(ownBytes / 2 ** 20).toFixed(0)} MiB`;
    log(`${size.key}: ${name} prepared: ${prepared[name]}`);
  }
  // What a service's matrix worker makes ahead (the hierarchies' arcs in the other metric, the classes' too): matrices below are queries only.
  const matricesStart = performance.now();
  router.prepareMatrices();
  const matricesMillis = performance.now() - matricesStart;
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  const matrixCliques = [truck, heavy].map((v) => classMatrixCliqueBytes(router, v));
  const vehicles: Array<[string, Vehicle | undefined]> = [
    ['car', undefined],
    ['TRUCK_WITH_TWO_DOUBLE_AXLES', truck],
    ['TRUCK_WITH_SIX_DOUBLE_AXLES', heavy],
    ['specification (4.38 m, 16 t), not prepared', vehicleOf(null, { maxHeight: 4.38, maxWidth: 2.6, maxLength: 14, maxWeight: 16_000, maxWeightPerAxle: 10_000 })],
  ];
  const { pairs, warmUp } = scalePairs(graph, size, PAIRS, 20);
  const rand = seededRandom(size.seed * 31 + 7);
  // 10 zones on and near each pair's free path (as bench:scale makes them), calculated once.
  const zonesOf: CalculatedZone[][] = [];
  for (const p of pairs) {
    let path: LatLon[] = p;
    try { path = router.route({ points: p, calculationMode: MODE }).legs[0].points; } catch { /* unroutable: zones at the stops */ }
    zonesOf.push(zonesOnPath(path, [...p, path[0], path[path.length - 1]], rand, `v${zonesOf.length}`).map((z) => calculateZone(graph, z)));
  }
  for (const z of zonesOf) router.prepareZones(z);
  for (const p of warmUp) for (const [, v] of vehicles) { try { router.route({ points: p, calculationMode: MODE, vehicle: v }); } catch { /* none */ } }

  const times: Record<string, { free: number[]; zoned: number[]; failed: number }> = {};
  const costs: Record<string, Float64Array> = {};
  for (const [name] of vehicles) { times[name] = { free: [], zoned: [], failed: 0 }; costs[name] = new Float64Array(pairs.length).fill(NaN); }
  pairs.forEach((p, i) => {
    for (const zoned of [false, true]) {
      for (const [name, vehicle] of vehicles) {
        const t = performance.now();
        let route: Route | undefined;
        try { route = router.route({ points: p, calculationMode: MODE, vehicle, zones: zoned ? zonesOf[i] : undefined }); } catch (e) { times[name].failed++; if (!REFUSALS.has((e as DetourError).code)) throw e; }
        const took = performance.now() - t;
        if (route) (zoned ? times[name].zoned : times[name].free).push(took);
        if (route && !zoned) costs[name][i] = route.duration;
      }
    }
  });
  // Exactness: the truck's free route against a plain Dijkstra that skips its closed roads, at heavy vehicles' speeds.
  const timed = oracleTimes(graph, true);
  const dijkstra = new PlainDijkstra(timed);
  let checked = 0, mismatches = 0;
  for (const [name, vehicle] of vehicles.slice(1)) {
    if (!oracleHeavy(vehicle!)) throw new Error(`${name} is not heavy: the check's speeds are a heavy vehicle's`);
    const closed = closedRoads(graph, vehicle!);
    for (let i = 0; i < Math.min(CHECK, pairs.length); i++) {
      if (Number.isNaN(costs[name][i])) continue;
      const [a, b] = router.snapStops(pairs[i]);
      if (closed[a.road] || closed[b.road]) continue;
      const expected = Math.min(
        dijkstra.cost(sourceEndpoints(timed, a, 'duration'), targetEndpoints(timed, b, 'duration'), 'duration', closed),
        closed[a.road] ? Infinity : directCost(timed, a, b, 'duration').cost,
      );
      checked++;
      if (!close(expected, costs[name][i])) { mismatches++; log(`${name} pair ${i}: ${costs[name][i]} vs Dijkstra ${expected}`); }
    }
  }
  const car = times.car;
  const limited = graph.limitRoads.length;
  const out = [
    `### ${size.key} (${graph.nodeCount.toLocaleString('en')} nodes, ${graph.roadCount.toLocaleString('en')} roads, ${limited.toLocaleString('en')} with limits: ` +
      `${((graph.limitRoads.byteLength + graph.limitValues.byteLength + graph.limitAccess.byteLength) / 2 ** 20).toFixed(1)} MiB of ${(graph.byteSize() / 2 ** 20).toFixed(0)} MiB of graph arrays)`,
    '',
    `${pairs.length} pairs, THE_FASTEST; Dijkstra check: ${checked} truck routes, ${mismatches} differences.`,
    '',
    `| vehicle | closed roads | prepared cells (time; cliques; penalised cliques of the destination-only roads' cells; of ${graph.hierarchy?.overlay?.fine ? graph.hierarchy.overlay.fine.entryFirst.length - 1 : 0} small cells) | own hierarchies (time in one thread, bytes; the graph's: ${((hierarchyByteSize(graph.hierarchy!.duration) + hierarchyByteSize(graph.hierarchy!.distance)) / 2 ** 20).toFixed(0)} MiB) | free p50 | free p95 | p50 / car | around 10 zones p50 | p95 | p50 / car | routes refused (free + zoned) |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [name, vehicle] of vehicles) {
    const t = times[name];
    const closedCount = vehicle ? router.vehicleRoads(vehicle).forbidden.length : 0;
    const prep = prepared[name] ?? ' | ';
    out.push(`| ${name} | ${closedCount.toLocaleString('en')} | ${prep} | ${ms(quantile(t.free, 0.5))} | ${ms(quantile(t.free, 0.95))} | ${(quantile(t.free, 0.5) / quantile(car.free, 0.5)).toFixed(2)} | ` +
      `${ms(quantile(t.zoned, 0.5))} | ${ms(quantile(t.zoned, 0.95))} | ${(quantile(t.zoned, 0.5) / quantile(car.zoned, 0.5)).toFixed(2)} | ${t.failed} |`);
  }
  out.push('');
  // A matrix between the pairs' first points and their second ones, car and trucks, free: wall time, and elements checked against routes.
  const side = Math.min(MATRIX, pairs.length);
  const origins = pairs.slice(0, side).map((p) => p[0]), destinations = pairs.slice(0, side).map((p) => p[1]);
  // The same matrix free and around the first three pairs' zones (30 zones, prepared).
  const matrixZones = zonesOf.slice(0, 3).flat();
  const matrixRows: string[] = [];
  const carMatrix = { free: 0, zoned: 0 };
  for (const [name, vehicle] of vehicles) {
    const cells: string[] = [];
    for (const zoned of [false, true]) {
      const zones = zoned ? matrixZones : undefined;
      const t = performance.now();
      const m = router.matrix({ origins, destinations, calculationMode: MODE, vehicle, zones });
      const took = performance.now() - t;
      if (!vehicle) carMatrix[zoned ? 'zoned' : 'free'] = took;
      let differ = 0;
      for (let k = 0; k < Math.min(CHECK, side); k++) {
        const i = k * side + ((k * 7) % side);
        try {
          const r = router.route({ points: [origins[k], destinations[(k * 7) % side]], calculationMode: MODE, vehicle, zones });
          if (!close(r.duration, m.duration[i])) { differ++; log(`${name} matrix element ${k}${zoned ? ' around zones' : ''}: ${m.duration[i]} vs route ${r.duration}`); }
        } catch { if (!m.failures.has(i)) differ++; }
      }
      cells.push(`${ms(took)} | ${(took / carMatrix[zoned ? 'zoned' : 'free']).toFixed(2)} | ${Math.min(CHECK, side)} / ${differ}`);
    }
    matrixRows.push(`| ${name} | ${cells.join(' | ')} |`);
  }
  out.push(`Matrix ${side} x ${side} (THE_FASTEST), free and around the first three pairs' 30 zones: the prepared trucks' free by the buckets of their classes' own hierarchies, around zones by the overlay crossing their classes' cells by cliques made once, customizing the zones' cells only; for both, the elements that must drive destination-only roads (or enter zones) by the overlay crossing those roads' cells by the classes' priced cliques made once, and the elements no legal route joins named as Router.route names them (the limits a car's route crosses) without searching for a route again. \`Router.prepareMatrices\` made the car's and both classes' matrix arrays in ${(matricesMillis / 1000).toFixed(1)} s; per class (16 t, 45 t) its cells' cliques ${matrixCliques.map((c) => mib(c.cliques)).join(', ')} and their priced cliques ${matrixCliques.map((c) => mib(c.priced)).join(', ')} (both metrics). The specification not prepared: the overlay customized for the request (the cells of its closed and destination-only roads and of the zones).`, '',
    '| vehicle | free | / car | checked against routes / differing | around zones | / car | checked / differing |', '|---|---:|---:|---:|---:|---:|---:|', ...matrixRows, '');
  return out;
}

const lines = [
  '## Vehicles',
  '',
  `\`npm run bench:vehicles -- --sizes ${opts.sizes} --pairs ${PAIRS} --check ${CHECK} --matrix ${MATRIX}\` (${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}). ` +
    'Routes for a car and for trucks (Maplink types: 4.4 m high, 16 t and 45 t, prepared; a specification not prepared; all at heavy vehicles\' speeds) on the same pairs of the synthetic countries, whose roads carry ' +
    'their tiles\' limits and a seeded share more (bench/scaleGraphs.ts). Target (issue 40): truck p50 at most 1.5x the car\'s, free and around 10 zones; 0 differences ' +
    '(the check: a plain Dijkstra over the documented heavy speeds, bench/speedOracle.ts, skipping the roads the bench finds closed).',
  '',
];
for (const size of parseSizes(opts.sizes!)) lines.push(...(await benchSize(size)));
const text = lines.join('\n');
console.log(text);
if (!opts['no-write']) updateResults(undefined, [text]);
