#!/usr/bin/env node
import { realpathSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import cliProgress from 'cli-progress';
import { DetourError } from './errors.js';
import { parseLatLon, type LatLon } from './geo/coordinates.js';
import { DEFAULT_GRAPH_PATH } from './defaultCity.js';
import { saveGraph, openGraph } from './hierarchy/graphFiles.js';
import { attachSearchIndexes } from './searchIndexes.js';
import { formatImportSummary, type ImportSummary, type OsmImportOptions } from './graph/importOsm.js';
import { buildHierarchyInWorkers } from './hierarchy/buildHierarchy.js';
import type { RoadGraph } from './graph/RoadGraph.js';
import type { HierarchyGraph } from './hierarchy/ContractionHierarchy.js';
import { Router } from './routing/Router.js';
import type { CalculationMode } from './routing/routeRequest.js';
import { AVOIDANCE_TYPES, type AvoidanceBehavior, type AvoidanceType } from './routing/avoidance.js';
import { VEHICLE_TYPE_FIGURES, vehicleOf, type Vehicle } from './routing/vehicle.js';
import { STEP_LANGUAGES, type StepLanguage } from './routing/stepTexts.js';
import { departureOf } from './routing/RoadSchedule.js';
import { routeToGeoJson, routeToJson, routeWithStops } from './cliFormat.js';
import { formatMatrix, readMatrixPoints } from './matrixFiles.js';
import { calculateZone, type CalculatedZone } from './zones/calculateZone.js';
import { loadZoneFile } from './zones/loadZoneFile.js';
import type { ServeConfig } from './service/startService.js';
import { API_PRODUCTS, registerClient } from './service/credentials.js';
import { restartTuned } from './service/processTuning.js';
import type { Store } from './store/Store.js';

/** The packages `serve` and `clients` need beyond the library (optional peer dependencies). */
export const SERVICE_PACKAGES = [
  'fastify', '@fastify/cors', '@fastify/formbody', '@fastify/static', '@fastify/swagger', '@fastify/swagger-ui',
  '@maplibre/vt-pbf', 'better-sqlite3', 'geojson-vt', 'helmet', 'pg', 'pino', 'rate-limiter-flexible',
] as const;

/**
 * The service's modules, loaded when a command needs them: the library installs without the
 * server packages, and a command that needs them says which to install.
 */
async function serviceModules() {
  try {
    const [start, cluster, threads, stores] = await Promise.all([
      import('./service/startService.js'), import('./service/serveCluster.js'), import('./service/serveThreads.js'), import('./store/openStore.js'),
    ]);
    return { configFromEnv: start.configFromEnv, startService: start.startService, startCluster: cluster.startCluster, startServiceThreads: threads.startServiceThreads, openStore: stores.openStore };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    const missing = /Cannot find (?:package|module) '([^']+)'/.exec((err as Error).message)?.[1];
    throw new DetourError(
      'SERVICE_DEPENDENCIES_MISSING',
      `the HTTP service needs packages that are not installed${missing ? ` (${missing} is missing)` : ''}: npm install ${SERVICE_PACKAGES.join(' ')}`,
    );
  }
}

/**
 * Loads and calculates --avoid zones, failing on one that cannot be calculated, and warning on
 * stderr of one that blocks no road: a zone off the graph, or GeoJSON written [latitude,
 * longitude], would otherwise change nothing without a word.
 */
function avoidZones(graph: RoadGraph, files: string[]): CalculatedZone[] {
  return files.map((file) => {
    const z = calculateZone(graph, loadZoneFile(file));
    if (z.status.name === 'CALCULATION_ERROR') throw new DetourError('ZONE_NOT_USABLE', `${file}: ${z.status.description}`);
    if (z.roads.length === 0) {
      process.stderr.write(`detour: warning: zone ${JSON.stringify(z.zone.name)} (${file}) blocks no road of the graph (${z.status.name}); is it on this graph, and is GeoJSON written [longitude, latitude]?\n`);
    }
    return z;
  });
}

const PROGRESS_MIN_BYTES = 2 * 1024 * 1024;

function latLonArg(label: string) {
  return (value: string): LatLon => {
    try {
      return parseLatLon(value, label);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };
}

/** The CLI's names of avoidance types (lower case, as flags are written) and Maplink's. */
const AVOID_TYPE_NAMES: Record<string, AvoidanceType> = {
  tunnels: 'TUNNELS', bridges: 'BRIDGES', ferries: 'FERRIES', tolls: 'TOLL_ROADS', 'toll-gates': 'TOLL_GATES', unpaved: 'UNPAVED',
};

function departArg(value: string): number {
  try {
    return departureOf(/^\d+$/.test(value) ? Number(value) : value, '--depart');
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message.replace(/^--depart: /, ''));
  }
}

function avoidTypesArg(value: string): AvoidanceType[] {
  return value.split(',').map((v) => v.trim()).filter((v) => v !== '').map((v) => {
    const t = AVOID_TYPE_NAMES[v.toLowerCase()] ?? AVOIDANCE_TYPES.find((name) => name === v.toUpperCase().replace(/-/g, '_'));
    if (!t) {
      throw new InvalidArgumentError(`unknown type ${JSON.stringify(v)}; use ${Object.keys(AVOID_TYPE_NAMES).join(', ')}` +
        (v.toUpperCase() === 'FRONTIERS' ? ' (frontiers: the graph knows no country borders)' : ''));
    }
    return t;
  });
}

/** The vehicle options of route and matrix: a Maplink type, and figures that replace its own. */
function vehicleOptions(command: Command): Command {
  const figure = (unit: string) => (v: string) => {
    const n = Number(v);
    if (!(n > 0 && n < 1000)) throw new InvalidArgumentError(`must be a positive number of ${unit}`);
    return n;
  };
  return command
    .addOption(new Option('--vehicle <type>', 'Maplink vehicle type whose legal figures apply (README, "Vehicles")').choices(Object.keys(VEHICLE_TYPE_FIGURES)))
    .option('--max-height <metres>', 'vehicle height', figure('metres'))
    .option('--max-width <metres>', 'vehicle width', figure('metres'))
    .option('--max-length <metres>', 'vehicle length', figure('metres'))
    .option('--max-weight <tonnes>', 'gross weight', figure('tonnes'))
    .option('--max-axle-load <tonnes>', 'heaviest axle load', figure('tonnes'))
    .option('--hazmat', 'carries dangerous goods (hazmat=no roads are closed)')
    .option('--speed <type=kmh[/toll]>', 'a Maplink road type\'s speed cap, and on its toll roads (HIGHWAY=80/60; repeatable; docs/VEHICLES.md "Speeds")', collect(speedPreference), []);
}

/** `--speed HIGHWAY=80` or `HIGHWAY=80/60`: a speedPreferences entry (checked with the rest by vehicleOf). */
function speedPreference(v: string): { roadType: string; speed?: number; speedAtToll?: number } {
  const m = /^([A-Z_]+)=(\d+(?:\.\d+)?)?(?:\/(\d+(?:\.\d+)?))?$/.exec(v.trim());
  if (!m || (m[2] === undefined && m[3] === undefined)) throw new InvalidArgumentError('must be ROAD_TYPE=KMH or ROAD_TYPE=KMH/TOLL_KMH, e.g. HIGHWAY=80/60');
  return { roadType: m[1], ...(m[2] !== undefined && { speed: Number(m[2]) }), ...(m[3] !== undefined && { speedAtToll: Number(m[3]) }) };
}

/** The vehicle the options describe (undefined: a car). */
function cliVehicle(opts: {
  vehicle?: string; maxHeight?: number; maxWidth?: number; maxLength?: number; maxWeight?: number; maxAxleLoad?: number; hazmat?: boolean;
  speed?: { roadType: string; speed?: number; speedAtToll?: number }[];
}): Vehicle | undefined {
  const kg = (t?: number) => (t === undefined ? undefined : t * 1000);
  const spec = {
    maxHeight: opts.maxHeight, maxWidth: opts.maxWidth, maxLength: opts.maxLength, maxWeight: kg(opts.maxWeight), maxWeightPerAxle: kg(opts.maxAxleLoad),
    maxWeightForDangerousMaterials: opts.hazmat ? 1 : undefined,
  };
  return vehicleOf(opts.vehicle, Object.values(spec).some((v) => v !== undefined) ? spec : undefined, 'options', opts.speed?.length ? opts.speed : undefined);
}

function collect<T>(parse: (v: string) => T) {
  return (value: string, previous: T[] = []) => [...previous, parse(value)];
}

/** Opens a graph input, with a progress bar on a terminal for large inputs. */
async function openWithProgress(path: string, extra: OsmImportOptions = {}): Promise<HierarchyGraph> {
  let bar: cliProgress.SingleBar | undefined;
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    // openGraph reports the missing file with its own error code
  }
  if (process.stderr.isTTY && size >= PROGRESS_MIN_BYTES) {
    bar = new cliProgress.SingleBar(
      { format: 'pass {pass} [{bar}] {percentage}% | {value}/{total} MB', stream: process.stderr },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.ceil(size / 1e6), 0, { pass: 1 });
  }
  try {
    return await openGraph(path, {
      ...extra,
      onProgress: bar ? (read, _total, pass) => bar!.update(Math.round(read / 1e6), { pass }) : undefined,
    });
  } finally {
    bar?.stop();
  }
}

/** Contracts both metrics on two worker threads, with a progress bar on a terminal. */
async function buildHierarchyWithProgress(graph: RoadGraph): Promise<void> {
  const bar = process.stderr.isTTY
    ? new cliProgress.SingleBar(
      { format: 'hierarchy [{bar}] {percentage}% | {value}/{total} nodes contracted (both metrics) | {duration}s', stream: process.stderr },
      cliProgress.Presets.shades_classic,
    )
    : undefined;
  bar?.start(2 * graph.nodeCount, 0);
  try {
    await buildHierarchyInWorkers(graph, {
      onProgress: bar ? (done) => bar.update(done) : undefined,
      onOverlay: () => {
        bar?.stop();
        if (process.stderr.isTTY) process.stderr.write('cells and their cliques for routes around zones...\n');
      },
    });
  } finally {
    bar?.stop();
  }
}

const MODES: Record<string, CalculationMode> = { fastest: 'THE_FASTEST', shortest: 'THE_SHORTEST' };

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('detour')
    .description('Routing engine for restriction zones: import OpenStreetMap roads, route around areas.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride(); // before the subcommands, which inherit it: main() decides exit codes

  program
    .command('import')
    .description('import .osm.pbf, .osm, .osm.gz or GeoJSON roads into a detour graph file')
    .argument('<input>', 'input file (format detected from its content)')
    .requiredOption('-o, --output <graph>', 'graph file to write')
    .action(async (input: string, opts: { output: string }) => {
      const started = performance.now();
      let summary: ImportSummary | undefined;
      const graph = await openWithProgress(input, { onSummary: (s) => (summary = s) });
      if (!graph.hierarchy) await buildHierarchyWithProgress(graph);
      attachSearchIndexes(graph);
      saveGraph(graph, opts.output);
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `${opts.output}: ${graph.nodeCount} nodes, ${graph.edgeCount} edges, ${graph.roadCount} roads, ` +
          `${(graph.totalRoadLength() / 1000).toFixed(1)} km of road, built in ${seconds.toFixed(2)} s`,
      );
      if (summary) for (const line of formatImportSummary(summary)) console.log(line);
      if (graph.meta.attribution) console.log(`data: ${graph.meta.attribution}`);
    });

  vehicleOptions(program
    .command('route')
    .description('compute a route through ordered points (prints JSON or GeoJSON)')
    .option('-g, --graph <graph>', 'graph file or OSM/GeoJSON input', DEFAULT_GRAPH_PATH)
    .requiredOption('--from <lat,lon>', 'start point', latLonArg('--from'))
    .requiredOption('--to <lat,lon>', 'end point', latLonArg('--to'))
    .option('--via <lat,lon>', 'intermediate stop (repeatable, in order)', collect(latLonArg('--via')), [])
    .addOption(new Option('-m, --mode <mode>', 'what to minimise').choices(['fastest', 'shortest']).default('fastest'))
    .addOption(new Option('-f, --format <format>', 'output format').choices(['json', 'geojson']).default('json'))
    .option('--avoid <zone-file>', 'restriction zone to avoid: GeoJSON Polygon/MultiPolygon/Feature/FeatureCollection or a zone JSON {name, geometries} (repeatable)', collect((v: string) => v), [])
    .option('--with-stops', 'GeoJSON: a FeatureCollection with the snapped stops, the steps\' maneuvers and the avoided zones too')
    .option('--steps', 'turn-by-turn instructions on every leg')
    .option('--depart <time>', 'departure, ISO-8601 (2026-12-07T08:00-03:00) or epoch milliseconds (default now): zones with a schedule apply at the times driven', departArg)
    .addOption(new Option('--language <language>', 'language of the instructions (implies --steps)').choices(STEP_LANGUAGES).default('en'))
    .option('--avoid-types <types>', `road types to avoid, comma-separated: ${Object.keys(AVOID_TYPE_NAMES).join(', ')}`, avoidTypesArg)
    .addOption(new Option('--avoidance-behavior <behavior>', 'fail: error when a leg cannot avoid them; strong: the fewest metres of them; relaxed: a cost per metre (see README)')
      .choices(['fail', 'strong', 'relaxed']).default('fail'))
    .addOption(new Option('--engine <engine>', 'search engine (default: ch when the graph has a contraction hierarchy, else astar)').choices(['ch', 'astar', 'ngraph']))
    .option('--max-snap <metres>', 'largest distance from a point to a road', (v) => {
      const n = Number(v);
      if (!(n > 0)) throw new InvalidArgumentError('must be a positive number of metres');
      return n;
    }, 1000))
    .action(async (opts, command: Command) => {
      const vehicle = cliVehicle(opts);
      const graph = await openWithProgress(opts.graph);
      const router = new Router(graph, { engine: opts.engine, maxSnapDistance: opts.maxSnap });
      const mode = MODES[opts.mode];
      const points = [opts.from, ...opts.via, opts.to];
      const labels = ['--from', ...opts.via.map((_: LatLon, i: number) => `--via #${i + 1}`), '--to'];
      const zones = avoidZones(graph, opts.avoid);
      const route = router.route({
        points, pointLabels: labels, calculationMode: mode, zones,
        avoidanceTypes: opts.avoidTypes, avoidanceBehavior: opts.avoidanceBehavior.toUpperCase() as AvoidanceBehavior, vehicle,
        steps: opts.steps || command.getOptionValueSource('language') === 'cli' ? (opts.language as StepLanguage) : undefined,
        departure: opts.depart,
      });
      const out =
        opts.format === 'geojson'
          ? opts.withStops ? routeWithStops(route, mode, zones) : routeToGeoJson(route, mode)
          : routeToJson(route, mode);
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    });

  vehicleOptions(program
    .command('matrix')
    .description('distances and durations from every origin to every destination (JSON or CSV)')
    .requiredOption('--origins <file>', 'origins: CSV (latitude,longitude[,id]) or JSON ([{latitude, longitude, id?}] or GeoJSON Points)')
    .requiredOption('--destinations <file>', 'destinations, in the same formats')
    .option('-g, --graph <graph>', 'graph file or OSM/GeoJSON input', DEFAULT_GRAPH_PATH)
    .addOption(new Option('-m, --mode <mode>', 'what to minimise').choices(['fastest', 'shortest']).default('fastest'))
    .addOption(new Option('-f, --format <format>', 'output format').choices(['json', 'csv']).default('json'))
    .option('--avoid <zone-file>', 'restriction zone to avoid, as for route (repeatable)', collect((v: string) => v), [])
    .option('--avoid-types <types>', 'road types no element may drive, as for route (elements that cannot avoid them fail)', avoidTypesArg)
    .option('--depart <time>', 'when every element leaves, as for route', departArg))
    .action(async (opts) => {
      const vehicle = cliVehicle(opts);
      const origins = readMatrixPoints(opts.origins, '--origins file');
      const destinations = readMatrixPoints(opts.destinations, '--destinations file');
      const graph = await openWithProgress(opts.graph);
      const router = new Router(graph);
      const zones = avoidZones(graph, opts.avoid);
      const mode = MODES[opts.mode];
      const total = origins.length * destinations.length;
      const bar = process.stderr.isTTY && total >= 10_000
        ? new cliProgress.SingleBar({ format: 'matrix [{bar}] {percentage}% | {value}/{total} elements', stream: process.stderr }, cliProgress.Presets.shades_classic)
        : undefined;
      bar?.start(total, 0);
      try {
        const result = router.matrix({ origins, destinations, calculationMode: mode, zones, avoidanceTypes: opts.avoidTypes, vehicle, departure: opts.depart, onProgress: bar ? (done) => bar.update(done) : undefined });
        bar?.stop();
        process.stdout.write(formatMatrix(result, origins, destinations, mode, opts.format));
      } finally {
        bar?.stop();
      }
    });

  const zone = program.command('zone').description('restriction zone tools');
  zone
    .command('calculate')
    .description('calculate which roads a zone blocks: prints the status, blocked edges and km of road inside')
    .argument('<zone-file>', 'zone JSON {name, geometries: [{vertices: [{latitude, longitude}]}]} or GeoJSON polygon(s)')
    .option('-g, --graph <graph>', 'graph file or OSM/GeoJSON input', DEFAULT_GRAPH_PATH)
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { graph: string; json?: boolean }) => {
      const graph = await openWithProgress(opts.graph);
      const z = calculateZone(graph, loadZoneFile(file));
      const summary = {
        name: z.zone.name,
        status: z.status,
        blockedEdges: z.edgeCount,
        blockedRoads: z.roads.length,
        kmOfRoadInside: Math.round(z.metresInside) / 1000,
        kmOfBlockedRoads: Math.round(z.blockedLength) / 1000,
        millis: Math.round(z.millis * 10) / 10,
      };
      if (opts.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      else {
        console.log(`zone ${JSON.stringify(z.zone.name)}: ${z.status.name} (${z.status.description})`);
        console.log(`blocked: ${z.edgeCount} edges on ${z.roads.length} roads, ${summary.kmOfRoadInside} km of road inside (${summary.kmOfBlockedRoads} km of road blocked whole), ${summary.millis} ms`);
      }
      if (z.status.name === 'CALCULATION_ERROR') process.exitCode = 1;
    });

  program
    .command('demo')
    .description('route across the bundled default city (Gothenburg) and print a summary')
    .option('-g, --graph <graph>', 'graph file', DEFAULT_GRAPH_PATH)
    .action(async (opts: { graph: string }) => {
      const graph = await openWithProgress(opts.graph);
      const router = new Router(graph);
      // Gothenburg central station to Liseberg amusement park, then to Slottsskogen park.
      const stops = [
        { latitude: 57.70887, longitude: 11.97456 },
        { latitude: 57.69514, longitude: 11.99253 },
        { latitude: 57.68431, longitude: 11.94347 },
      ];
      console.log(`detour demo on ${graph.meta.source}`);
      console.log(`graph: ${graph.nodeCount} nodes, ${graph.edgeCount} edges; data ${graph.meta.attribution}`);
      for (const mode of ['THE_FASTEST', 'THE_SHORTEST'] as const) {
        const started = performance.now();
        const route = router.route({ points: stops, calculationMode: mode });
        const ms = performance.now() - started;
        console.log(
          `${mode}: ${(route.distance / 1000).toFixed(2)} km, ${(route.duration / 60).toFixed(1)} min, ` +
            `${route.averageSpeed.toFixed(1)} km/h, ${route.legs.length} legs, ` +
            `${route.legs.reduce((s, l) => s + l.points.length, 0)} points (${ms.toFixed(1)} ms)`,
        );
      }
      const args = stops.map((s, i) => `${i === 0 ? '--from' : i === stops.length - 1 ? '--to' : '--via'} ${s.latitude},${s.longitude}`);
      console.log(`see it on a map: npx detour route ${args.join(' ')} --format geojson > route.geojson`);
    });

  program
    .command('serve')
    .description('run the HTTP service (token, Restriction Zone, Trip and Matrix APIs); flags override PORT, HOST, DETOUR_GRAPH, DETOUR_DATA_DIR, DATABASE_URL, LOG_LEVEL, DETOUR_CORS_ORIGINS, DETOUR_TRUST_PROXY, DETOUR_ZONES_PER_CLIENT, DETOUR_VERTICES_PER_CLIENT, DETOUR_WORKERS, DETOUR_TRIP_THREADS, DETOUR_TOKEN_LIFETIME, DETOUR_DOCS, DETOUR_DEMO_CLIENT, DETOUR_MATRIX_CALLBACK_HOSTS, DETOUR_BASEMAP_URL, DETOUR_BASEMAP_ATTRIBUTION')
    .option('-p, --port <port>', 'port (0: any free port)')
    .option('--host <host>', 'address to listen on')
    .option('-g, --graph <graph>', 'graph file or OSM/GeoJSON input')
    .option('--data-dir <dir>', 'folder of the SQLite database')
    .option('--database-url <url>', 'PostgreSQL connection string (instead of SQLite)')
    .option('--log-level <level>', 'fatal, error, warn, info, debug or trace')
    .option('--cors-origins <list>', 'comma-separated allowed origins, * for any')
    .option('--trust-proxy <proxies>', 'true, a hop count, or comma-separated proxy addresses/CIDRs whose X-Forwarded-For is believed')
    .option('--zones-per-client <n>', 'most zones one client may store (default 1000)')
    .option('--vertices-per-client <n>', "most vertices in all of one client's zones (default 1000000)")
    .option('--workers <n>', "event loops serving requests (default: half the machine's cores; 1: a single one)")
    .option('--worker-mode <mode>', 'threads (one copy of the graph; default on Linux with Node 22.12+) or processes (one copy each)')
    .option('--trip-threads <n>', 'threads trips run on, per worker (default: the cores each worker\'s share leaves beside its event loop, at least 1)')
    .option('--prepare-vehicles <types>', 'Maplink vehicle types whose routes each trip thread prepares, comma-separated, or none (default TRUCK_WITH_TWO_DOUBLE_AXLES)')
    .option('--basemap-url <template>', 'raster tiles under the map page\'s roads, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png (default none: offline)')
    .option('--basemap-attribution <text>', 'the attribution the basemap\'s licence asks for')
    .action(async (opts: Record<string, string | undefined>) => {
      // First of all: it starts this process again, with the allocator's and V8's settings, where Node can.
      restartTuned();
      const { configFromEnv, startService, startCluster, startServiceThreads } = await serviceModules();
      const env = { ...process.env };
      const flags: Record<string, string> = { port: 'PORT', host: 'HOST', graph: 'DETOUR_GRAPH', dataDir: 'DETOUR_DATA_DIR', databaseUrl: 'DATABASE_URL', logLevel: 'LOG_LEVEL', corsOrigins: 'DETOUR_CORS_ORIGINS', trustProxy: 'DETOUR_TRUST_PROXY', zonesPerClient: 'DETOUR_ZONES_PER_CLIENT', verticesPerClient: 'DETOUR_VERTICES_PER_CLIENT', workers: 'DETOUR_WORKERS', workerMode: 'DETOUR_WORKER_MODE', tripThreads: 'DETOUR_TRIP_THREADS', prepareVehicles: 'DETOUR_PREPARE_VEHICLES', basemapUrl: 'DETOUR_BASEMAP_URL', basemapAttribution: 'DETOUR_BASEMAP_ATTRIBUTION' };
      for (const [flag, name] of Object.entries(flags)) if (opts[flag] !== undefined) env[name] = opts[flag];
      let config: ServeConfig;
      try {
        config = configFromEnv(env);
      } catch (err) {
        // Name the flag the user typed, not the variable it stands for ("--port", not "PORT").
        let message = (err as Error).message;
        for (const [flag, name] of Object.entries(flags)) {
          if (opts[flag] !== undefined && message.startsWith(`${name} `)) message = `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}${message.slice(name.length)}`;
        }
        throw new DetourError('INVALID_INPUT', message);
      }
      if (config.workers > 1) {
        const running = await (config.workerMode === 'threads' ? startServiceThreads(config) : startCluster(config)).catch((err: Error) => {
          if (err instanceof DetourError) throw err;
          throw new DetourError('SERVICE_START_FAILED', `cannot start the service: ${err.message}`);
        });
        void running.stopped.then((code) => process.exit(code));
        process.once('SIGTERM', () => running.close('SIGTERM'));
        process.once('SIGINT', () => running.close('SIGINT'));
        return;
      }
      const service = await startService(config).catch((err: Error) => {
        if (err instanceof DetourError) throw err;
        throw new DetourError('SERVICE_START_FAILED', `cannot start the service: ${err.message}`);
      });
      const stop = (signal: string) => {
        service.app.log.info(`${signal}: finishing requests in flight, then stopping`);
        service.close().then(
          () => process.exit(0),
          (err) => {
            service.app.log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });

  const clients = program.command('clients').description('register, list and revoke API clients (same DETOUR_DATA_DIR / DATABASE_URL as serve)');
  const storeOptions = (c: Command) =>
    c.option('--data-dir <dir>', 'folder of the SQLite database (default DETOUR_DATA_DIR or ./.detour)').option('--database-url <url>', 'PostgreSQL connection string (default DATABASE_URL)');
  const withStore = async <T>(opts: { dataDir?: string; databaseUrl?: string }, use: (store: Store) => Promise<T>): Promise<T> => {
    const { configFromEnv, openStore } = await serviceModules();
    const env = configFromEnv({ ...process.env, ...(opts.dataDir && { DETOUR_DATA_DIR: opts.dataDir }), ...(opts.databaseUrl && { DATABASE_URL: opts.databaseUrl }), PORT: '', DETOUR_WORKERS: '', DETOUR_TRIP_THREADS: '' });
    const store = await openStore(env);
    try {
      return await use(store);
    } finally {
      await store.close();
    }
  };
  storeOptions(
    clients
      .command('add')
      .description('register a client; prints its id and secret (the secret is shown only once)')
      .requiredOption('--name <name>', 'application name')
      .option('--products <list>', `comma-separated API products (${API_PRODUCTS.join(', ')})`, API_PRODUCTS.join(','))
      .option('--organization <name>', 'organization name (default the application name)')
      .option('--email <email>', "developer's email")
      .option('--json', 'print {"client_id": ..., "client_secret": ...}'),
  ).action(async (opts) => {
    const products = String(opts.products).split(',').map((p: string) => p.trim()).filter(Boolean);
    const { client, clientSecret } = await withStore(opts, (store) =>
      registerClient(store, { applicationName: opts.name, organizationName: opts.organization, developerEmail: opts.email, products }).catch((err: Error) => {
        throw new DetourError('INVALID_INPUT', err.message);
      }),
    );
    if (opts.json) process.stdout.write(`${JSON.stringify({ client_id: client.clientId, client_secret: clientSecret })}\n`);
    else {
      console.log(`client_id:     ${client.clientId}`);
      console.log(`client_secret: ${clientSecret}`);
      console.log(`products:      ${client.products.join(', ')}`);
      console.log('the secret is stored only as a hash: keep it now, it cannot be shown again');
    }
  });
  storeOptions(clients.command('list').description('list clients (never their secrets)').option('--json', 'print JSON')).action(async (opts) => {
    const list = await withStore(opts, (store) => store.listClients());
    const rows = list.map((c) => ({
      client_id: c.clientId,
      application_name: c.applicationName,
      organization_name: c.organizationName,
      products: c.products,
      created_at: new Date(c.createdAt).toISOString(),
      revoked_at: c.revokedAt === null ? null : new Date(c.revokedAt).toISOString(),
    }));
    if (opts.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    else if (rows.length === 0) console.log('no clients');
    else for (const r of rows) console.log(`${r.client_id}  ${r.application_name}  [${r.products.join(', ')}]  ${r.revoked_at ? `revoked ${r.revoked_at}` : 'active'}`);
  });
  storeOptions(clients.command('revoke').description('revoke a client: its tokens stop working at once').argument('<client-id>')).action(async (clientId: string, opts) => {
    const revoked = await withStore(opts, (store) => store.revokeClient(clientId, Date.now()));
    if (!revoked) throw new DetourError('CLIENT_NOT_FOUND', `no active client ${JSON.stringify(clientId)}`);
    console.log(`revoked ${clientId}`);
  });

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof DetourError) {
      process.stderr.write(`detour: ${err.code}: ${err.message}\n`);
      return 1;
    }
    const code = (err as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help') return 0;
    if (typeof code === 'string' && code.startsWith('commander.')) return 2; // commander printed the usage error
    process.stderr.write(`detour: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    return 70;
  }
}

/** True when this file is the program (run directly, through a bin symlink, or via npx). */
function isMainModule(): boolean {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(fileURLToPath(import.meta.url)) === realpathSync(process.argv[1]);
  } catch {
    return false;
  }
}

if (isMainModule()) process.exitCode = await main(process.argv);
