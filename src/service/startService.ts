import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_GRAPH_PATH } from '../defaultCity.js';
import { openGraph } from '../graph/openGraph.js';
import { openStore } from '../store/openStore.js';
import type { Store } from '../store/Store.js';
import { createService } from './createService.js';
import { registerClient } from './credentials.js';
import { zoneSource } from './zoneRoutes.js';

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
  /** DETOUR_WORKERS, default the machine's cores (os.availableParallelism()): processes serving requests; 1: one process, no cluster. */
  workers: number;
}

/** The most worker processes `serve` starts: each holds a whole graph, so more than cores only costs memory. */
export const MAX_WORKERS = 64;

/** The configuration from environment variables (see ServeConfig for the names). */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServeConfig {
  const port = env.PORT === undefined || env.PORT === '' ? 3000 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number (0 to 65535), got ${JSON.stringify(env.PORT)}`);
  return {
    port,
    host: env.HOST || '127.0.0.1',
    graphPath: env.DETOUR_GRAPH || DEFAULT_GRAPH_PATH,
    dataDir: resolve(env.DETOUR_DATA_DIR || '.detour'),
    databaseUrl: env.DATABASE_URL || undefined,
    logLevel: env.LOG_LEVEL || 'info',
    corsOrigins: (env.DETOUR_CORS_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    trustProxy: parseTrustProxy(env.DETOUR_TRUST_PROXY),
    workers: parseWorkers(env.DETOUR_WORKERS),
  };
}

function parseWorkers(value: string | undefined): number {
  if (value === undefined || value === '') return Math.min(availableParallelism(), MAX_WORKERS);
  const workers = Number(value);
  if (!/^\d+$/.test(value.trim()) || workers < 1 || workers > MAX_WORKERS) {
    throw new Error(`DETOUR_WORKERS must be a whole number of processes from 1 to ${MAX_WORKERS}, got ${JSON.stringify(value)}`);
  }
  return workers;
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

/** Calculates every stored zone on this graph (they are cached by revision afterwards). */
export async function recalculateStoredZones(app: FastifyInstance): Promise<{ zones: number; millis: number }> {
  const started = performance.now();
  const stored = await app.store.allZones();
  for (const z of stored) app.zoneCache.current(zoneSource(z));
  return { zones: stored.length, millis: performance.now() - started };
}

/** Registers a demo client when the store has no client at all, and logs its id and secret (shown only this once). */
export async function createDemoClientWhenNone(store: Store, log: { warn(fields: object, message: string): void }): Promise<void> {
  if ((await store.listClients()).length > 0) return;
  const { client, clientSecret } = await registerClient(store, { applicationName: 'detour demo', organizationName: 'detour' });
  log.warn(
    { client_id: client.clientId, client_secret: clientSecret },
    `no clients yet: created a demo client. client_id=${client.clientId} client_secret=${clientSecret} (the secret is shown only now; \`detour clients add\` makes more)`,
  );
}

export interface StartOptions {
  /**
   * This process is a worker of `serve --workers N`: the primary has already migrated the store
   * and created the demo client, and it announces the address once every worker listens.
   */
  clusterWorker?: boolean;
}

/**
 * Starts the service in this process: loads the graph, opens the store (migrating it),
 * recalculates the stored zones, creates a demo client when there is none (not in a cluster
 * worker: its primary did), and listens.
 */
export async function startService(config: ServeConfig, options: StartOptions = {}): Promise<RunningService> {
  const graph = await openGraph(config.graphPath);
  const store = await openStore(config);
  let app: FastifyInstance;
  try {
    app = await createService({ graph, store, logger: { level: config.logLevel }, corsOrigins: config.corsOrigins, trustProxy: config.trustProxy });
  } catch (err) {
    await store.close();
    throw err;
  }
  const log = app.log;
  log.info(`graph ${config.graphPath}: ${graph.nodeCount} nodes, ${graph.edgeCount} edges (${graph.meta.attribution ?? 'no attribution'})`);
  log.info(`store: ${store.kind} at ${store.location}`);
  const warm = await recalculateStoredZones(app);
  log.info(`${warm.zones} stored restriction zones calculated in ${warm.millis.toFixed(0)} ms`);

  if (!options.clusterWorker) await createDemoClientWhenNone(store, log);

  const cleanup = setInterval(() => {
    store.deleteExpiredTokens(Date.now()).catch((err) => log.warn({ err }, 'could not delete expired tokens'));
  }, 10 * 60 * 1000);
  cleanup.unref();

  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    clearInterval(cleanup);
    await app.close();
    await store.close();
    throw err;
  }
  const url = address.replace('0.0.0.0', '127.0.0.1');
  if (options.clusterWorker) log.info(`worker ${cluster.worker?.id} (pid ${process.pid}) serving ${url}`);
  else log.info(`detour is listening on ${url} (API reference: ${url}/docs)`);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      clearInterval(cleanup);
      await app.close();
      await store.close();
    })());
  return { app, store, url, close };
}
