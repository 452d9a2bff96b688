import cluster from 'node:cluster';
import { availableParallelism, hostname } from 'node:os';
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_GRAPH_PATH } from '../defaultCity.js';
import { openGraph } from '../hierarchy/graphFiles.js';
import { openStore } from '../store/openStore.js';
import { DEFAULT_ZONE_QUOTA, type Store, type ZoneQuota } from '../store/Store.js';
import { createService } from './createService.js';
import { ensureDemoClient } from './demoClient.js';
import { TRIP_RETENTION_DAYS } from './schemas.js';
import { zoneSource } from './zoneRoutes.js';
import { RoadIndex } from '../zones/RoadIndex.js';
import type { MessagePort } from 'node:worker_threads';
import type { HierarchyGraph } from '../hierarchy/ContractionHierarchy.js';
import type { Matrices } from '../routing/MatrixRunner.js';
import type { ScryptDerive } from './scryptThreads.js';
import type { ZoneWork } from '../zones/ZoneCalculator.js';
import type { SharedRouterData, VehicleClassPart } from '../routing/routerThread.js';
import { VEHICLE_TYPE_FIGURES, vehicleOf } from '../routing/vehicle.js';

/** How the service is run: flags override the environment, which overrides these defaults. */
export interface ServeConfig {
  /** PORT, default 3000 (0 picks a free port). */
  port: number;
  /** HOST, default 127.0.0.1 (0.0.0.0 to listen on every interface). */
  host: string;
  /** DETOUR_GRAPH, default the bundled city. */
  graphPath: string;
  /** DETOUR_DATA_DIR, default ./.detour: where the SQLite file lives. */
  dataDir: string;
  /** DATABASE_URL: PostgreSQL instead of SQLite. */
  databaseUrl?: string;
  /** LOG_LEVEL, default info. */
  logLevel: string;
  /** DETOUR_CORS_ORIGINS, comma-separated; unset: no CORS headers. */
  corsOrigins: string[];
  /** DETOUR_TRUST_PROXY: "true", a hop count, or comma-separated proxy addresses/CIDRs; unset: none. */
  trustProxy: boolean | number | string[];
  /** DETOUR_ZONES_PER_CLIENT (default 1,000) and DETOUR_VERTICES_PER_CLIENT (default 1,000,000). */
  zoneQuota: ZoneQuota;
  /** DETOUR_TOKEN_LIFETIME, seconds, default 3600 (2 to 86400). */
  tokenLifetimeSeconds: number;
  /** DETOUR_DOCS, default true: false serves no /docs (neither the reference nor the OpenAPI document). */
  docs: boolean;
  /** DETOUR_DEMO_CLIENT: true or false; unset: a demo client only when listening on loopback. */
  demoClient?: boolean;
  /**
   * DETOUR_WORKERS, default half the machine's cores (os.availableParallelism(), at least 1):
   * event loops serving requests (service threads or processes: workerMode), each with its trip
   * threads; 1: one process, one event loop.
   */
  workers: number;
  /**
   * DETOUR_WORKER_MODE: `threads` (default where Node can share a port between threads: Linux,
   * Node 22.12 or later) serves with `workers` threads of one process over one copy of the graph;
   * `processes` forks `workers` processes (node:cluster), each loading the graph.
   */
  workerMode: WorkerMode;
  /** DETOUR_TRIP_THREADS, default the cores each worker's share leaves beside its event loop (at least 1): threads trips run on, per worker. */
  tripThreads: number;
  /**
   * DETOUR_INSTANCE_ID, default host name:port (none with port 0): the name this instance takes
   * jobs up under (with its worker's number), so when it starts again it takes back at once the
   * jobs it left under way (Jobs' taker) instead of waiting for their leases.
   */
  instanceId?: string;
  /** DETOUR_TRIP_RETENTION_DAYS, whole days from 1 to 30, default 7: how long trips' solutions are kept, by default and at most. */
  tripRetentionDays: number;
  /**
   * DETOUR_PREPARE_VEHICLES, comma-separated Maplink vehicle types (or `none`), default
   * TRUCK_WITH_TWO_DOUBLE_AXLES (the SDK's): the vehicle classes each trip thread prepares
   * (Router.prepareVehicle: seconds and megabytes per class on a country); other vehicles route
   * exactly, slower.
   */
  prepareVehicles: string[];
  /** DETOUR_MATRIX_CALLBACK_HOSTS, comma-separated host names (or host:port) matrix callbacks may go to; unset: any. */
  matrixCallbackHosts?: string[];
  /**
   * DETOUR_BASEMAP_URL (an http(s) raster tile template with {z}, {x}, {y}) and
   * DETOUR_BASEMAP_ATTRIBUTION: a basemap under the map page's roads; unset: none (offline).
   */
  basemap?: { url: string; attribution: string };
}

export type WorkerMode = 'threads' | 'processes';

/**
 * Whether this Node can open one port on several threads of a process (`reusePort`: Linux, Node
 * 22.12+ or 23.1+); elsewhere `serve --workers N` runs processes.
 */
export function threadsCanSharePort(version = process.versions.node, platform = process.platform): boolean {
  const [major, minor] = version.split('.').map(Number);
  return platform === 'linux' && (major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12));
}

function parseWorkerMode(value: string | undefined): WorkerMode {
  if (value === undefined || value.trim() === '') return threadsCanSharePort() ? 'threads' : 'processes';
  const mode = value.trim();
  if (mode !== 'threads' && mode !== 'processes') throw new Error(`DETOUR_WORKER_MODE must be threads or processes, got ${JSON.stringify(value)}`);
  if (mode === 'threads' && !threadsCanSharePort()) throw new Error(`DETOUR_WORKER_MODE threads needs Linux and Node 22.12 or later (threads sharing a port); this is Node ${process.versions.node} on ${process.platform}: use processes`);
  return mode;
}

/** The most workers (and trip threads per worker) `serve` starts: more than cores only costs memory. */
export const MAX_WORKERS = 64;

/** The configuration from environment variables (see ServeConfig for the names). */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServeConfig {
  const port = env.PORT === undefined || env.PORT === '' ? 3000 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number (0 to 65535), got ${JSON.stringify(env.PORT)}`);
  // A process's event loop (HTTP, JSON, the store) and its trip thread each keep about a core busy under load.
  const workers = parseCount('DETOUR_WORKERS', env.DETOUR_WORKERS, 'workers', Math.max(1, Math.floor(availableParallelism() / 2)));
  return {
    port,
    host: env.HOST || '127.0.0.1',
    graphPath: env.DETOUR_GRAPH || DEFAULT_GRAPH_PATH,
    dataDir: resolve(env.DETOUR_DATA_DIR || '.detour'),
    databaseUrl: env.DATABASE_URL || undefined,
    logLevel: env.LOG_LEVEL || 'info',
    corsOrigins: (env.DETOUR_CORS_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    trustProxy: parseTrustProxy(env.DETOUR_TRUST_PROXY),
    zoneQuota: {
      zones: positiveInteger(env, 'DETOUR_ZONES_PER_CLIENT', DEFAULT_ZONE_QUOTA.zones),
      vertices: positiveInteger(env, 'DETOUR_VERTICES_PER_CLIENT', DEFAULT_ZONE_QUOTA.vertices),
    },
    tokenLifetimeSeconds: parseTokenLifetime(env.DETOUR_TOKEN_LIFETIME),
    docs: parseBoolean('DETOUR_DOCS', env.DETOUR_DOCS) ?? true,
    demoClient: parseBoolean('DETOUR_DEMO_CLIENT', env.DETOUR_DEMO_CLIENT),
    workers,
    workerMode: parseWorkerMode(env.DETOUR_WORKER_MODE),
    instanceId: env.DETOUR_INSTANCE_ID || (port === 0 ? undefined : `${hostname()}:${port}`),
    tripThreads: parseCount('DETOUR_TRIP_THREADS', env.DETOUR_TRIP_THREADS, 'threads', Math.max(1, Math.floor(availableParallelism() / workers) - 1)),
    tripRetentionDays: tripRetentionDays(env.DETOUR_TRIP_RETENTION_DAYS),
    prepareVehicles: parseVehicleTypes(env.DETOUR_PREPARE_VEHICLES),
    matrixCallbackHosts: env.DETOUR_MATRIX_CALLBACK_HOSTS ? env.DETOUR_MATRIX_CALLBACK_HOSTS.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    basemap: parseBasemap(env.DETOUR_BASEMAP_URL, env.DETOUR_BASEMAP_ATTRIBUTION),
  };
}

/** DETOUR_PREPARE_VEHICLES: Maplink vehicle types, comma-separated; `none` for none. */
function parseVehicleTypes(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return ['TRUCK_WITH_TWO_DOUBLE_AXLES'];
  if (value.trim() === 'none') return [];
  const types = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = types.filter((t) => !(t in VEHICLE_TYPE_FIGURES));
  if (unknown.length > 0) throw new Error(`DETOUR_PREPARE_VEHICLES must list Maplink vehicle types (${Object.keys(VEHICLE_TYPE_FIGURES).join(', ')}) or be none, got ${unknown.join(', ')}`);
  return types;
}

/** A raster basemap: an http(s) URL with {z}, {x} and {y}, and the attribution its licence asks for. */
function parseBasemap(url: string | undefined, attribution: string | undefined): ServeConfig['basemap'] {
  if (!url) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url.replace(/\{([zxy])\}/g, '0'));
  } catch {
    parsed = undefined;
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol) || !['{z}', '{x}', '{y}'].every((p) => url.includes(p))) {
    throw new Error(`DETOUR_BASEMAP_URL must be an http(s) URL with {z}, {x} and {y}, got ${JSON.stringify(url)}`);
  }
  if (!attribution) throw new Error('DETOUR_BASEMAP_ATTRIBUTION must name the basemap\'s source (its licence asks for it)');
  return { url, attribution };
}

/** A whole number from 1 to 2^31 - 1 in `env[name]`, or the default when unset or empty. */
function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const n = /^[0-9]{1,10}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 2 ** 31 - 1)) throw new Error(`${name} must be a whole number from 1 to 2147483647, got ${JSON.stringify(value)}`);
  return n;
}

function tripRetentionDays(value: string | undefined): number {
  if (value === undefined || value === '') return TRIP_RETENTION_DAYS.default;
  const days = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(days >= 1 && days <= TRIP_RETENTION_DAYS.max)) throw new Error(`DETOUR_TRIP_RETENTION_DAYS must be whole days from 1 to ${TRIP_RETENTION_DAYS.max}, got ${JSON.stringify(value)}`);
  return days;
}

function parseTokenLifetime(value: string | undefined): number {
  if (value === undefined || value === '') return 3600;
  const seconds = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(seconds >= 2 && seconds <= 86_400)) throw new Error(`DETOUR_TOKEN_LIFETIME must be whole seconds from 2 to 86400, got ${JSON.stringify(value)}`);
  return seconds;
}

/** "true"/"false" (also 1/0, yes/no); unset or empty: undefined. */
function parseBoolean(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

/** A whole number of `what` from 1 to MAX_WORKERS in `value`, or the default when unset or empty. */
function parseCount(name: string, value: string | undefined, what: string, fallback: number): number {
  if (value === undefined || value === '') return Math.min(fallback, MAX_WORKERS);
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1 || n > MAX_WORKERS) {
    throw new Error(`${name} must be a whole number of ${what} from 1 to ${MAX_WORKERS}, got ${JSON.stringify(value)}`);
  }
  return n;
}

function parseTrustProxy(value: string | undefined): boolean | number | string[] {
  if (!value || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

export interface RunningService {
  app: FastifyInstance;
  store: Store;
  /** http://host:port */
  url: string;
  /** Stops taking requests, finishes those in flight, closes the store. */
  close(): Promise<void>;
}

/**
 * Calculates the stored zones on this graph (they are cached by revision afterwards), one at a
 * time with a turn of the event loop between them, so a service that is already listening keeps
 * answering while it warms up (a trip naming a zone not reached yet calculates it on demand).
 * Progress shows in /health as `zonesWarmUp`. Stops at the zone cache's capacity.
 */
export async function recalculateStoredZones(app: FastifyInstance): Promise<{ zones: number; millis: number }> {
  const started = performance.now();
  const stored = await app.store.allZones();
  const total = Math.min(stored.length, app.zoneCache.capacity);
  const progress = app.zoneWarmUp;
  progress.total = total;
  progress.done = 0;
  progress.running = true;
  try {
    // close() clears `running`: a closing service stops warming up.
    for (let i = 0; i < total && progress.running; i++) {
      app.zoneCache.current(zoneSource(stored[i]));
      progress.done = i + 1;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    progress.running = false;
  }
  return { zones: total, millis: performance.now() - started };
}

/**
 * The demo client rules (ensureDemoClient: created on an empty store when listening on loopback
 * or when asked; its secret printed to the console once, never logged), with what the log says.
 */
export async function setUpDemoClient(store: Store, config: Pick<ServeConfig, 'host' | 'demoClient'>, log: { info(message: string): void; warn(fields: object, message: string): void }): Promise<void> {
  const demo = await ensureDemoClient(store, { host: config.host, enabled: config.demoClient });
  if (demo.created) log.warn({ client_id: demo.created.clientId }, 'created a demo client; its secret was printed to the console once');
  else if (demo.skipped === 'not loopback') log.info(`no clients yet and listening on ${config.host}: no demo client (DETOUR_DEMO_CLIENT=true makes one); \`detour clients add\` registers clients`);
  for (const c of demo.exposedDemoClients) log.warn({ client_id: c.clientId }, `the demo client is active while listening on ${config.host}; \`detour clients revoke ${c.clientId}\` if it should not be`);
}

/**
 * What the parent of `serve --workers N` does once for its workers: opens the store (so the
 * migrations run once), creates the demo client when that is allowed, and closes it again.
 */
export async function setUpStore(config: ServeConfig, log: Parameters<typeof setUpDemoClient>[2]): Promise<void> {
  const store = await openStore(config);
  try {
    log.info(`store: ${store.kind} at ${store.location}`);
    await setUpDemoClient(store, config, log);
  } finally {
    await store.close();
  }
}

export interface StartOptions {
  /**
   * This process is a worker of `serve --workers N`: the primary has already migrated the store
   * and created the demo client, and it announces the address once every worker listens.
   */
  clusterWorker?: boolean;
  /** Which of `serve --workers N`'s workers this process is (0 to N - 1; a replacement keeps the number of the one it replaces). */
  workerSlot?: number;
  /**
   * This is service thread `index` of `serve --workers N` on threads (startServiceThreads): the
   * main thread has migrated the store, created the demo client and loaded the graph, which this
   * thread serves on the same port as the others (reusePort). Only thread 0 makes the vehicle
   * classes; the others adopt them (app.adoptVehicleClass).
   */
  serviceThread?: ServiceThreadOptions;
}

export interface ServiceThreadOptions {
  index: number;
  /** The graph the main thread loaded, on its memory (graphOnSharedData(shared)). */
  graph: HierarchyGraph;
  shared: SharedRouterData;
  matrices: Matrices;
  limits: MessagePort;
  scrypt: ScryptDerive;
  /** The process's zone worker (zoneWorkOverPort). */
  zones: ZoneWork;
  /** scrypt verifications this thread may have under way (its share of the process's). */
  maxConcurrentVerifications: number;
  /** Told each part of a vehicle class thread 0 made. */
  onVehicleClass?: (part: VehicleClassPart) => void;
  /** Parts of vehicle classes made before this thread started (by the thread it replaces, or thread 0). */
  vehicleParts: VehicleClassPart[];
}

/**
 * Starts the service in this process: loads the graph, opens the store (migrating it), creates a
 * demo client when there is none and that is allowed (ensureDemoClient; not in a cluster worker:
 * its primary did), listens, then calculates the stored zones in the background.
 */
export async function startService(config: ServeConfig, options: StartOptions = {}): Promise<RunningService> {
  const thread = options.serviceThread;
  const graph = thread?.graph ?? await openGraph(config.graphPath);
  const store = await openStore(config);
  let app: FastifyInstance;
  try {
    app = await createService({
      graph, store, logger: { level: config.logLevel, ...(thread && { base: { pid: process.pid, thread: thread.index } }) }, corsOrigins: config.corsOrigins, trustProxy: config.trustProxy,
      zoneQuota: config.zoneQuota, tokenLifetimeSeconds: config.tokenLifetimeSeconds, docs: config.docs,
      matrix: { callbackHosts: config.matrixCallbackHosts, prepare: true, taker: config.instanceId && `${config.instanceId}/${thread?.index ?? options.workerSlot ?? 0}` },
      basemap: config.basemap,
      trips: {
        retentionMillis: config.tripRetentionDays * 24 * 3600_000, prepare: true, threads: config.tripThreads, vehicles: config.prepareVehicles.map((t) => vehicleOf(t)!),
        adoptVehicles: thread !== undefined && thread.index > 0, onVehicleClass: thread?.onVehicleClass,
      },
      serviceThread: thread && { shared: thread.shared, matrices: thread.matrices, limits: thread.limits, scrypt: thread.scrypt, zones: thread.zones },
      maxConcurrentVerifications: thread?.maxConcurrentVerifications,
    });
  } catch (err) {
    await store.close();
    throw err;
  }
  for (const part of thread?.vehicleParts ?? []) app.adoptVehicleClass(part);
  const log = app.log;
  log.info(`graph ${config.graphPath}: ${graph.nodeCount} nodes, ${graph.edgeCount} edges (${graph.meta.attribution ?? 'no attribution'})`);
  log.info(`store: ${store.kind} at ${store.location}`);

  if (!options.clusterWorker && !thread) await setUpDemoClient(store, config, log);

  const cleanup = setInterval(() => {
    store.deleteExpiredTokens(Date.now()).catch((err) => log.warn({ err }, 'could not delete expired tokens'));
  }, 10 * 60 * 1000);
  cleanup.unref();

  // The road index every zone calculation reads, built before listening rather than inside the
  // first zone request (tens of milliseconds on a city, seconds on a country).
  RoadIndex.for(graph);

  let address: string;
  try {
    // Service threads share the port: the kernel spreads connections over their sockets.
    address = await app.listen({ port: config.port, host: config.host, ...(thread && { reusePort: true }) });
  } catch (err) {
    clearInterval(cleanup);
    await app.close();
    await store.close();
    throw err;
  }
  // Stored zones warm up after listening: a restart never waits on them (they were validated
  // when stored, and a trip calculates any zone it names that is not ready yet).
  recalculateStoredZones(app).then(
    (warm) => log.info(`${warm.zones} stored restriction zones calculated in ${warm.millis.toFixed(0)} ms`),
    (err) => log.warn({ err }, 'could not calculate the stored restriction zones in advance'),
  );
  const url = address.replace('0.0.0.0', '127.0.0.1');
  if (options.clusterWorker) log.info(`worker ${cluster.worker?.id} (pid ${process.pid}) serving ${url}`);
  else if (thread) log.info(`service thread ${thread.index} serving ${url}`);
  else log.info(`detour is listening on ${url} ${config.docs ? `(API reference: ${url}/docs)` : '(no /docs: DETOUR_DOCS=false)'}`);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      clearInterval(cleanup);
      app.zoneWarmUp.running = false;
      await app.close();
      await store.close();
    })());
  return { app, store, url, close };
}
