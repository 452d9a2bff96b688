/**
 * detour at country scale: `npm run bench:scale -- --sizes 1m,5m` (sizes: 1m, 5m, 10m synthetic
 * countries, grid1m, grid4m uniform grids; see bench/scaleGraphs.ts). Per size: load time, memory,
 * the time of a 1 km zone's calculation, and `Router.route` p50 / p95 for both metrics, free and
 * with 10 zones of 1-5 km on and near the free path, for the default engine of `new Router(graph)`
 * and for `engine: 'astar'` (ALT) side by side on the same pairs, with costs checked against each
 * other on every pair and against a plain Dijkstra on a sample. Writes the "Scale" section of
 * bench/RESULTS.md (unless --no-write). A default engine whose search has the name 'astar' is
 * taken to be the ALT engine itself and is not run twice.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { calculateZone, RoadGraph, Router, SnapIndex, type CalculatedZone, type LatLon, type Route } from '../src/index.js';
import { HierarchySearch } from '../src/routing/HierarchySearch.js';
import { RoadIndex } from '../src/zones/RoadIndex.js';
import { directCost, sourceEndpoints, targetEndpoints } from '../src/routing/endpoints.js';
import { MAX_CUSTOMIZED_ENTRIES } from '../src/routing/OverlaySearch.js';
import { shortcutPathBytes } from '../src/routing/ShortcutPaths.js';
import type { CalculationMode } from '../src/routing/routeRequest.js';
import { PlainDijkstra } from './plainDijkstra.js';
import { mergeScaleParts, replaceScaleSection } from './resultsSection.js';
import { parseSizes, SCALE_SIZES, scaleGraph, scalePairs, type ScaleSize } from './scaleGraphs.js';
import { seededRandom } from './seededRandom.js';
import { close, ms, quantile } from './stats.js';
import { roundZone, zonesOnPath } from './zonesOnPath.js';

const { values: opts } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1m' },
    pairs: { type: 'string', default: '300' },
    check: { type: 'string', default: '10' },
    'zone-samples': { type: 'string', default: '50' },
    ngraph: { type: 'string', default: '0' },
    'ngraph-max-nodes': { type: 'string', default: '2000000' },
    'no-write': { type: 'boolean', default: false },
  },
});
/** Untimed routes per engine and metric before the timed ones. */
const WARM_UP = 50;
const PAIRS = Number(opts.pairs), CHECK = Number(opts.check), ZONE_SAMPLES = Number(opts['zone-samples']), NGRAPH_PAIRS = Number(opts.ngraph);
const MODES: CalculationMode[] = ['THE_FASTEST', 'THE_SHORTEST'];
const log = (s: string) => process.stderr.write(`# ${s}\n`);
const gc = () => (globalThis as { gc?: () => void }).gc?.();

const costOf = (route: Route, mode: CalculationMode) => (mode === 'THE_FASTEST' ? route.duration : route.distance);

interface Engine {
  label: string;
  router: Router;
}

interface Timings {
  first: Record<string, number>;
  free: Record<string, number[]>;
  zoned: Record<string, number[]>;
  /** Around another pair's zones: mostly off this pair's path. */
  elsewhere: Record<string, number[]>;
  /** Around its own zones and one more around its target: the leg drives the fewest metres inside. */
  inside: Record<string, number[]>;
}

async function benchSize(size: ScaleSize): Promise<string[]> {
  const out: string[] = [];
  gc();
  // Memory is measured from before the load, so whatever a loaded graph carries (e.g. a hierarchy)
  // counts, not only the arrays RoadGraph.byteSize knows.
  const before = process.memoryUsage();
  const { graph, loadMillis, fileBytes, hierarchyMillis } = await scaleGraph(size, log);
  log(`${size.key}: ${graph.nodeCount} nodes, ${graph.edgeCount} edges, loaded in ${loadMillis?.toFixed(0)} ms`);
  // The file carries both indexes (graph.indexes): adopting them is what a service does at start.
  let t = performance.now();
  const roadIndex = RoadIndex.for(graph);
  const snapIndex = SnapIndex.for(graph);
  const adoptMs = performance.now() - t;
  const byDefault = new Router(graph, { snapIndex });
  const engines: Engine[] = [{ label: `\`new Router(graph)\` (engine ${byDefault.search.name})`, router: byDefault }];
  // The ALT peer is made only once the default engine's memory is read: its search arrays (24 B
  // per node) are allocated when it is constructed, and counted in the default's figure otherwise.
  const withPeer = byDefault.search.name !== 'astar';

  // Warm-up routes on other pairs before each engine's timed ones (after its first route), so the
  // timings are of compiled code, as in a service that has answered a few requests.
  const { pairs, warmUp, random: rand } = scalePairs(graph, size, PAIRS, WARM_UP);

  // First route of each mode: includes whatever an engine prepares lazily (ALT landmarks).
  const timings: Record<CalculationMode, Timings> = {} as never;
  for (const mode of MODES) timings[mode] = { first: {}, free: {}, zoned: {}, elsewhere: {}, inside: {} };
  // Memory is read after the default engine's first routes (what a service holds ready to
  // query), then again once the peers have prepared too.
  const readyBytes: number[] = [];
  let graphBytes = 0;
  for (let i = 0; i < (withPeer ? 2 : 1); i++) {
    if (i === 1) engines.push({ label: "ALT A* (`engine: 'astar'`)", router: new Router(graph, { engine: 'astar', snapIndex }) });
    const e = engines[i];
    for (const mode of MODES) {
      t = performance.now();
      try { e.router.route({ points: pairs[0], calculationMode: mode }); } catch { /* counted with the pairs below */ }
      timings[mode].first[e.label] = performance.now() - t;
      for (const w of warmUp) { try { e.router.route({ points: w, calculationMode: mode }); } catch { /* warm-up only */ } }
      timings[mode].free[e.label] = [];
      timings[mode].zoned[e.label] = [];
      timings[mode].elsewhere[e.label] = [];
      timings[mode].inside[e.label] = [];
    }
    gc();
    const ready = process.memoryUsage();
    readyBytes.push((ready.heapUsed + ready.arrayBuffers) - (before.heapUsed + before.arrayBuffers));
    // The graph's arrays as the default engine holds them (the ALT peer derives more on the same graph).
    if (readyBytes.length === 1) graphBytes = graph.byteSize();
  }
  // Free routes: each engine runs every pair of a mode in a row, one engine after the other (not
  // interleaved pair by pair, so one engine's garbage and cache misses do not land in the other's
  // timings); costs compared between engines afterwards.
  const freeCost = new Map<string, number>(); // `${mode}/${pair}/${engine}`
  const failed = new Set<number>();
  let engineMismatches = 0, compared = 0;
  // Free paths kept for placing the zones, as the legs' flat lat/lon arrays: keeping 300 routes'
  // LatLon objects made every later route's garbage collections copy them (THE_FASTEST free p95
  // 4.5 ms against 1.4 ms for THE_SHORTEST, whose paths were not kept), a cost of this harness.
  const freePath: Float64Array[] = [];
  for (const e of engines) {
    for (const mode of MODES) {
      for (let p = 0; p < pairs.length; p++) {
        let route: Route;
        const t0 = performance.now();
        try {
          route = e.router.route({ points: pairs[p], calculationMode: mode });
        } catch (err) {
          if ((err as { code?: string }).code !== 'ROUTE_NOT_FOUND') throw err;
          failed.add(p);
          continue;
        }
        timings[mode].free[e.label].push(performance.now() - t0);
        freeCost.set(`${mode}/${p}/${e.label}`, costOf(route, mode));
        if (mode === 'THE_FASTEST' && e === engines[0]) freePath[p] = route.legs[0].coordinates;
      }
    }
    log(`${size.key}: free routes, ${e.label} done`);
  }
  const compareEngines = (prefix: string) => {
    for (let p = 0; p < pairs.length; p++) {
      for (const mode of MODES) {
        const ref = freeCost.get(`${prefix}${mode}/${p}/${engines[0].label}`);
        if (ref === undefined) continue;
        for (const e of engines.slice(1)) {
          const cost = freeCost.get(`${prefix}${mode}/${p}/${e.label}`);
          if (cost === undefined) continue;
          compared++;
          if (!close(ref, cost)) engineMismatches++;
        }
      }
    }
  };
  compareEngines('');

  // Zoned routes: ten 1-5 km zones on and near each pair's free THE_FASTEST path, calculated
  // first; then each engine in a row as above.
  const zoneMillis: number[] = [], customizeMillis: number[] = [], sharedMillis: number[] = [];
  const pairZones: CalculatedZone[][] = [];
  let zoneCount = 0, stopOnZoneRoad = 0, insideEntered = 0;
  for (let p = 0; p < pairs.length; p++) {
    if (failed.has(p) || !freePath[p]) continue;
    const flat = freePath[p];
    const path: LatLon[] = [];
    for (let i = 0; i < flat.length; i += 2) path.push({ latitude: flat[i], longitude: flat[i + 1] });
    const zones = zonesOnPath(path, [...pairs[p], path[0], path[path.length - 1]], rand, `p${p}`).map((z) => calculateZone(graph, z));
    for (const z of zones) zoneMillis.push(z.millis);
    // Customized before the routes too, as a service would once a zone is calculated (route() would otherwise do it at the zone's first route).
    for (const z of zones) {
      const t0 = performance.now();
      byDefault.prepareZones([z]);
      customizeMillis.push(performance.now() - t0);
    }
    // Then the cells two of them share, for those zones together (a set a client's trips name again).
    const t1 = performance.now();
    byDefault.prepareZones(zones);
    sharedMillis.push(performance.now() - t1);
    zoneCount += zones.length;
    pairZones[p] = zones;
  }
  const { sharedCells, bigCells } = byDefault.preparedZones;
  // One more zone of 1-3 km around each pair's target: a stop inside a zone (its own random
  // sequence: the zones and samples after it stay those of earlier runs).
  const insideRand = seededRandom(size.seed * 7 + 11);
  const insideZones: CalculatedZone[][] = [];
  for (let p = 0; p < pairs.length; p++) {
    if (!pairZones[p]) continue;
    const to = pairs[p][1];
    insideZones[p] = [...pairZones[p], calculateZone(graph, roundZone(`p${p}-around`, to.latitude, to.longitude, 1000 + insideRand() * 2000, insideRand))];
    byDefault.prepareZones(insideZones[p]);
  }
  const prepared = byDefault.preparedZones;
  // Each pair around its own zones (on and near its path), then around the next pair's (the
  // zones a client keeps elsewhere: most routes miss most of them).
  for (const [kind, shift] of [['zoned', 0], ['elsewhere', 1], ['inside', 0]] as const) {
    for (const e of engines) {
      for (const mode of MODES) {
        for (let p = 0; p < pairs.length; p++) {
          const zones = kind === 'inside' ? insideZones[p] : pairZones[(p + shift) % pairs.length];
          if (!pairZones[p] || !zones) continue;
          const t0 = performance.now();
          let route: Route;
          try {
            route = e.router.route({ points: pairs[p], calculationMode: mode, zones });
          } catch (err) {
            if ((err as { code?: string }).code !== 'ROUTE_NOT_FOUND') throw err;
            continue;
          }
          timings[mode][kind][e.label].push(performance.now() - t0);
          if (kind === 'zoned' && route.legs[0].zonesEntered && mode === 'THE_FASTEST' && e === engines[0]) stopOnZoneRoad++;
          if (kind === 'inside' && route.legs[0].zonesEntered && mode === 'THE_FASTEST' && e === engines[0]) insideEntered++;
          freeCost.set(`${kind}/${mode}/${p}/${e.label}`, costOf(route, mode));
        }
      }
      log(`${size.key}: ${kind} routes, ${e.label} done`);
    }
    compareEngines(`${kind}/`);
  }

  // Plain Dijkstra on a sample of pairs, free and zoned, both metrics.
  const dijkstra = new PlainDijkstra(graph);
  let checked = 0, checkMismatches = 0, skippedInZone = 0;
  const dijkstraMillis: number[] = [];
  const checkPairs = [...pairs.keys()].filter((p) => !failed.has(p) && pairZones[p]).slice(0, CHECK);
  for (const p of checkPairs) {
    const [from, to] = byDefault.snapStops(pairs[p]);
    const mask = new Uint8Array(graph.roadCount);
    for (const z of pairZones[p]) for (const r of z.roads) mask[r] = 1;
    for (const mode of MODES) {
      const metric = mode === 'THE_FASTEST' ? 'duration' : 'distance';
      for (const zoned of [false, true]) {
        if (zoned && (mask[from.road] || mask[to.road])) { skippedInZone++; continue; }
        const blocked = zoned ? mask : undefined;
        const t0 = performance.now();
        const direct = zoned && mask[from.road] ? Infinity : directCost(graph, from, to, metric).cost;
        const oracle = Math.min(direct, dijkstra.cost(sourceEndpoints(graph, from, metric), targetEndpoints(graph, to, metric), metric, blocked));
        dijkstraMillis.push(performance.now() - t0);
        for (const e of engines) {
          const got = freeCost.get(`${zoned ? 'zoned/' : ''}${mode}/${p}/${e.label}`);
          if (got === undefined && oracle === Infinity) continue;
          checked++;
          if (got === undefined || !close(got, oracle)) {
            checkMismatches++;
            log(`${size.key}: pair ${p} ${mode} ${zoned ? 'zoned' : 'free'} ${e.label}: ${got} vs Dijkstra ${oracle}`);
          }
        }
      }
    }
  }

  // A 1 km zone around random nodes (after a collection, so earlier garbage is not billed to it).
  gc();
  const oneKm: number[] = [], oneKmBest: number[] = [], oneKmCustomize: number[] = [];
  let oneKmRoads = 0;
  for (let i = 0; i < ZONE_SAMPLES; i++) {
    const n = Math.floor(rand() * graph.nodeCount);
    const zone = roundZone(`km${i}`, graph.nodeLatitude(n), graph.nodeLongitude(n), 1000, rand);
    const z = calculateZone(graph, zone);
    oneKm.push(z.millis);
    oneKmRoads += z.roads.length;
    t = performance.now();
    byDefault.prepareZones([z]);
    oneKmCustomize.push(performance.now() - t);
    // The same zone twice more: the best of three filters out preemption on a shared machine.
    oneKmBest.push(Math.min(z.millis, calculateZone(graph, zone).millis, calculateZone(graph, zone).millis));
  }

  // ngraph.path (aStar, haversine) on the first pairs, free, when asked: seconds per route here.
  const ngraphLines: string[] = [];
  if (NGRAPH_PAIRS > 0 && graph.nodeCount > Number(opts['ngraph-max-nodes'])) {
    ngraphLines.push(`| both | ngraph.path aStar | not run: ${graph.nodeCount.toLocaleString('en')} nodes is over --ngraph-max-nodes (an ngraph.graph holds JS objects per node and per link) | | | |`);
  } else if (NGRAPH_PAIRS > 0) {
    t = performance.now();
    const ngraph = new Router(graph, { engine: 'ngraph', snapIndex });
    const buildMs = performance.now() - t;
    for (const mode of MODES) {
      const own: number[] = [], peer: number[] = [];
      let agree = 0, total = 0;
      for (let p = 0, done = 0; p < pairs.length && done < NGRAPH_PAIRS; p++) {
        if (failed.has(p)) continue;
        done++;
        const t0 = performance.now();
        const route = ngraph.route({ points: pairs[p], calculationMode: mode });
        peer.push(performance.now() - t0);
        const t1 = performance.now();
        engines[0].router.route({ points: pairs[p], calculationMode: mode });
        own.push(performance.now() - t1);
        total++;
        if (close(costOf(route, mode), freeCost.get(`${mode}/${p}/${engines[0].label}`)!)) agree++;
      }
      ngraphLines.push(`| ${mode} | ngraph.path aStar, ${total} pairs (ngraph.graph built in ${ms(buildMs)}) | ${ms(quantile(peer, 0.5))} | ${ms(quantile(own, 0.5))} | ${(quantile(peer, 0.5) / quantile(own, 0.5)).toFixed(0)}x | ${agree} of ${total} |`);
      log(`${size.key}: ngraph ${mode} done`);
    }
  }

  // What building the indexes costs (a graph file without them, or `detour import`): on a view
  // of the same arrays without its indexes, after the routes (its garbage would land in their timings).
  const bare = new RoadGraph(graph.arrays(), graph.meta);
  t = performance.now();
  RoadIndex.for(bare);
  const roadIndexMs = performance.now() - t;
  t = performance.now();
  SnapIndex.for(bare);
  const snapMs = performance.now() - t;

  const routed = pairs.length - failed.size;
  const command = `npm run bench:scale -- --sizes ${size.key} --pairs ${PAIRS} --check ${CHECK}${NGRAPH_PAIRS ? ` --ngraph ${NGRAPH_PAIRS}` : ''}`;
  out.push(`### ${size.kind === 'country' ? 'Synthetic country' : 'Uniform grid'} ${size.key}: ${graph.nodeCount.toLocaleString('en')} nodes, ${graph.edgeCount.toLocaleString('en')} directed edges, ${graph.roadCount.toLocaleString('en')} roads`, '');
  out.push(`${graph.meta.source}. Measured ${new Date().toISOString().slice(0, 16)}Z with \`${command}\`; load average ${loadavg().map((l) => l.toFixed(1)).join(' / ')} (1 / 5 / 15 min) on ${cpus().length} cores at the end; ${cpus()[0]?.model ?? 'unknown CPU'}.`, '');
  out.push('| step | figure |', '|---|---|');
  out.push(`| preprocessing: contraction hierarchy of both metrics on two worker threads and cell overlay (when the cached graph was made) | ${hierarchyMillis === undefined ? 'n/a' : `${(hierarchyMillis / 1000).toFixed(0)} s (target <= 10 min: ${hierarchyMillis <= 600_000 ? 'met' : 'MISSED'})`} |`);
  out.push(`| graph file | ${(fileBytes / 2 ** 20).toFixed(0)} MiB, loaded in ${ms(loadMillis ?? NaN)} |`);
  out.push(`| memory: graph arrays (stored, and what the default engine derives: per-road durations) | ${(graphBytes / graph.edgeCount).toFixed(1)} B per directed edge |`);
  out.push(`| road index (zone calculation and snapping): build / size | ${ms(roadIndexMs)} / ${(roadIndex.byteSize() / graph.roadCount).toFixed(1)} B per road |`);
  const { snapRoadBits, snapTinyRoads, snapTinyComponent } = graph.indexes;
  const snapFactBytes = (snapRoadBits?.byteLength ?? 0) + (snapTinyRoads?.byteLength ?? 0) + (snapTinyComponent?.byteLength ?? 0);
  out.push(`| snap index (the road index's tree, per road its role bits, and the component of the ${snapTinyRoads?.length ?? 0} roads outside the big components): build / size | ${ms(snapMs)} / ${(snapFactBytes / graph.edgeCount).toFixed(1)} B per directed edge besides the road tree |`);
  out.push(`| both indexes adopted from the graph file (as \`serve\` does) | ${ms(adoptMs)} |`);
  out.push(`| memory ready to query (graph + hierarchy + indexes + the default engine's state after a route of each metric) | ${(readyBytes[0] / graph.edgeCount).toFixed(1)} B per directed edge (target <= 100: ${readyBytes[0] / graph.edgeCount <= 100 ? 'met' : 'MISSED'}) |`);
  // Derived at the first route with a stop inside a zone (PenaltyBound walks in-edges), so not in the figure above.
  const reverseBytes = 4 * (graph.nodeCount + 1) + 4 * graph.edgeCount;
  out.push(`| the same once a route with a stop inside a zone has derived the reverse adjacency (firstIn, inEdge: ${(reverseBytes / graph.edgeCount).toFixed(1)} B per directed edge) | ${((readyBytes[0] + reverseBytes) / graph.edgeCount).toFixed(1)} B per directed edge |`);
  if (readyBytes.length > 1) out.push(`| the same with the ALT peer prepared too (its search arrays and landmarks) | ${(readyBytes[1] / graph.edgeCount).toFixed(1)} B per directed edge |`);
  const state = engines[0].router.search;
  if (state instanceof HierarchySearch) {
    const kept = state.free.paths.distance.byteSize + state.free.paths.duration.byteSize;
    out.push(`| the default engine's search state after every route above (NodeRecords: the entries and hash table of the largest search, nothing per node; the edges of long shortcuts unpacked, kept for the next routes: ShortcutPaths, ${(kept / 2 ** 20).toFixed(1)} MiB of at most ${(2 * shortcutPathBytes(graph.edgeCount) / 2 ** 20).toFixed(0)}) | ${(state.stateBytes / graph.edgeCount).toFixed(1)} B per directed edge (${(state.stateBytes / 2 ** 20).toFixed(0)} MiB) |`);
  }
  out.push(`| zone calculation, 1 km across (${ZONE_SAMPLES} zones, ${(oneKmRoads / ZONE_SAMPLES).toFixed(0)} roads blocked on average): p50 / p95 (first calculation); p95 of the best of 3 | ${ms(quantile(oneKm, 0.5))} / ${ms(quantile(oneKm, 0.95))}; ${ms(quantile(oneKmBest, 0.95))} |`);
  out.push(`| zone calculation, the 1-5 km zones of the zoned routes (${zoneMillis.length}): p50 / p95 | ${ms(quantile(zoneMillis, 0.5))} / ${ms(quantile(zoneMillis, 0.95))} |`);
  out.push(`| zone customization, once per zone after its calculation (\`Router.prepareZones\`: the small cells the zone touches, then the big cells holding them, get cliques around its roads), 1 km across: p50 / p95 | ${ms(quantile(oneKmCustomize, 0.5))} / ${ms(quantile(oneKmCustomize, 0.95))} |`);
  out.push(`| the same for the 1-5 km zones of the zoned routes: p50 / p95; memory held | ${ms(quantile(customizeMillis, 0.5))} / ${ms(quantile(customizeMillis, 0.95))}; ${prepared.zones > 0 ? `${(prepared.bytes / prepared.zones / 1024).toFixed(1)} KiB per zone` : `none customized (cells of over ${MAX_CUSTOMIZED_ENTRIES} entries), ${(prepared.bytes / 1024).toFixed(1)} KiB of bookkeeping`} (${prepared.zones} zones, ${prepared.sharedCells} shared cells, ${prepared.bigCells} big cells) |`);
  out.push(`| the cells two or more of a pair's zones share, and the big cells holding its zones' cells (for the zones in each), customized once the zones are (\`Router.prepareZones\` with the pair's zones): shared and big cells kept, per pair; p50 / p95 per pair's set | ${(sharedCells / Math.max(1, sharedMillis.length)).toFixed(1)} and ${(bigCells / Math.max(1, sharedMillis.length)).toFixed(1)}; ${ms(quantile(sharedMillis, 0.5))} / ${ms(quantile(sharedMillis, 0.95))} |`);
  out.push(`| plain Dijkstra (the oracle), per check: p50 | ${ms(quantile(dijkstraMillis, 0.5))} |`);
  out.push('');
  out.push(`\`Router.route\` (snapping and geometry included) on ${routed} of ${pairs.length} random pairs (${failed.size} without a route), each engine after its first route and ${WARM_UP} untimed ones per metric on other pairs; zoned: ${(zoneCount / Math.max(1, pairZones.filter(Boolean).length)).toFixed(1)} zones per pair on average, calculated and customized beforehand (\`Router.prepareZones\`, rows above); "elsewhere": each pair around the next pair's zones instead of its own (most miss its path).`, '');
  out.push('| metric | engine | first route (lazy preparation) | free p50 | free p95 | 10 zones p50 | 10 zones p95 | 10 zones elsewhere p50 | p95 |', '|---|---|---|---|---|---|---|---|---|');
  for (const mode of MODES) {
    for (const e of engines) {
      const tm = timings[mode];
      out.push(`| ${mode} | ${e.label} | ${ms(tm.first[e.label])} | ${ms(quantile(tm.free[e.label], 0.5))} | ${ms(quantile(tm.free[e.label], 0.95))} | ${ms(quantile(tm.zoned[e.label], 0.5))} | ${ms(quantile(tm.zoned[e.label], 0.95))} | ${ms(quantile(tm.elsewhere[e.label], 0.5))} | ${ms(quantile(tm.elsewhere[e.label], 0.95))} |`);
    }
    if (engines.length > 1) {
      const ratio = (k: 'free' | 'zoned' | 'elsewhere') => quantile(timings[mode][k][engines[1].label], 0.5) / quantile(timings[mode][k][engines[0].label], 0.5);
      out.push(`| ${mode} | default vs ALT, median | | ${ratio('free').toFixed(1)}x | | ${ratio('zoned').toFixed(1)}x | | ${ratio('elsewhere').toFixed(1)}x | |`);
    }
  }
  out.push('', `A stop inside a zone: the same pairs around their zones and one more of 1-3 km around the target (${insideEntered} of the THE_FASTEST routes entered a zone). The leg drives the fewest metres inside zones, then the metric (\`src/routing/PenaltyBound.ts\`).`, '');
  out.push('| metric | engine | p50 | p95 | max |', '|---|---|---|---|---|');
  for (const mode of MODES) {
    for (const e of engines) {
      const v = timings[mode].inside[e.label];
      out.push(`| ${mode} | ${e.label} | ${ms(quantile(v, 0.5))} | ${ms(quantile(v, 0.95))} | ${ms(v.length ? Math.max(...v) : NaN)} |`);
    }
  }
  if (ngraphLines.length) {
    out.push('', 'Peer on the first pairs, free routes (the default engine re-timed on the same pairs):', '');
    out.push('| metric | peer | peer p50 | default engine p50 | default is faster by | same cost |', '|---|---|---|---|---|---|', ...ngraphLines);
  }
  out.push('');
  out.push(`Exactness: ${engines.length > 1 ? `engines agree on ${compared - engineMismatches} of ${compared} route costs; ` : ''}costs equal a plain Dijkstra over the unblocked roads on ${checked - checkMismatches} of ${checked} checks (${checkPairs.length} pairs, both metrics, free and zoned${skippedInZone ? `; ${skippedInZone} zoned checks skipped: a stop on a blocked road` : ''}). ${stopOnZoneRoad} zoned THE_FASTEST routes had to enter a zone (a stop on a blocked road).`);
  out.push('');
  // The route targets, for both metrics: each figure against its target, the worst metric decides.
  const target = (kind: 'free' | 'zoned', q: number, limit: number) => {
    const figures = MODES.map((mode) => quantile(timings[mode][kind][engines[0].label], q));
    return `${figures.every((f) => f <= limit) ? 'met' : 'MISSED'} (${figures.map(ms).join(' / ')})`;
  };
  out.push(`Targets of issue 9 (meant for the ~5M country; ${MODES.join(' / ')}, default engine): 1 km zone <= 2 ms: ${quantile(oneKm, 0.95) <= 2 ? 'met (p95)' : quantile(oneKm, 0.5) <= 2 ? 'met at p50, not at p95' : 'NOT met'} (p95 of the best of 3: ${ms(quantile(oneKmBest, 0.95))}); free p50 <= 1 ms: ${target('free', 0.5, 1)}; free p95 <= 3 ms: ${target('free', 0.95, 3)}; 10 zones p50 <= 5 ms: ${target('zoned', 0.5, 5)}; 10 zones p95 <= 20 ms: ${target('zoned', 0.95, 20)}.`, '');
  return out;
}

const intro = [
  '## Scale: synthetic country and uniform grids (`npm run bench:scale`)',
  '',
  `Node ${process.version} on ${cpus().length} cores shared with other work while measuring; each size names its CPU (machines differ between`,
  'sessions: compare figures of different sizes by their ratios to the peers, not as times).',
  'Graphs are generated by bench/scaleGraphs.ts (seeded; cached in bench/.cache, never committed). In each size, every engine',
  'routes the same pairs in the same process, every pair of a metric in a row, one engine after the other; each size names the command',
  'that measured it (a run of some sizes keeps the others).',
].join('\n');
const parts = new Map<string, string>();
const resultsPath = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
for (const size of parseSizes(opts.sizes!)) {
  parts.set(size.key, (await benchSize(size)).join('\n'));
  // Written after every size, so a long run stopped part-way keeps what it measured.
  if (!opts['no-write']) {
    const current = existsSync(resultsPath) ? readFileSync(resultsPath, 'utf8') : '# detour benchmark results\n';
    writeFileSync(resultsPath, replaceScaleSection(current, mergeScaleParts(current, intro, new Map([[size.key, parts.get(size.key)!]]), SCALE_SIZES.map((s) => s.key))));
  }
  gc();
}
console.log([intro, ...parts.values()].join('\n\n'));
