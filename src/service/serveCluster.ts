import cluster, { type Worker } from 'node:cluster';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino, type Logger } from 'pino';
import { RateLimiterClusterMaster } from 'rate-limiter-flexible';
import { DetourError } from '../errors.js';
import { mallocTuning, v8Tuning } from './processTuning.js';
import { setUpStore, type ServeConfig } from './startService.js';

/** The environment variable carrying a worker's configuration (JSON of ServeConfig) from the primary. */
export const WORKER_CONFIG_ENV = 'DETOUR_WORKER_CONFIG';

/** The environment variable carrying a worker's number (0 to N - 1; a replacement gets the number of the worker it replaces). */
export const WORKER_SLOT_ENV = 'DETOUR_WORKER_SLOT';

/** A message a worker sends the primary before exiting when it cannot start (the port is taken, the graph is missing...). */
export interface WorkerStartFailed {
  type: 'detour:start-failed';
  /** A DetourError's code, kept so the CLI reports e.g. FILE_NOT_FOUND as a single process would. */
  code?: string;
  message: string;
}

/** How the primary looks after its workers; the defaults suit production, tests shorten them. */
export interface ClusterOptions {
  /** Replacements allowed within restartWindowMs before the primary gives up (a crash loop), default 5 per worker. */
  maxRestarts?: number;
  /** Milliseconds over which replacements are counted, default 60,000. */
  restartWindowMs?: number;
  /** Milliseconds the workers get to finish requests in flight after SIGTERM before they are killed, default 30,000. */
  stopTimeoutMs?: number;
}

/** A running cluster: the address every worker serves, and a graceful stop. */
export interface RunningCluster {
  /** http://host:port, shared by every worker. */
  url: string;
  log: Logger;
  /** Current worker process ids. */
  workerPids(): number[];
  /** Asks every worker to finish its requests in flight and exit; resolves with 0 when all exited cleanly, else 1. */
  close(reason?: string): Promise<number>;
  /**
   * Resolves with the exit code the process should end with once the cluster has stopped, by
   * close() or because workers died more often than maxRestarts allows (then 1).
   */
  stopped: Promise<number>;
}

/** An address the workers listen on as the host of a URL a local client can use. */
export function hostForUrl(address: string | undefined): string {
  if (!address || address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return address.includes(':') ? `[${address}]` : address;
}

/** The worker entry beside this file: .ts when run through tsx, .js when built. */
function workerEntry(): string {
  const here = fileURLToPath(import.meta.url);
  return join(dirname(here), `clusterWorker${extname(here)}`);
}

/**
 * Runs `serve --workers N` as a node:cluster primary. The primary opens the store once (so the
 * migrations run once), creates the demo client when there is no client, hosts the shared
 * failed-login counters (rate-limiter-flexible's RateLimiterClusterMaster, which the workers'
 * RateLimiterCluster instances talk to), then forks N workers. Each worker loads its own copy of
 * the graph and runs a whole fastify service on the same port (the primary hands out connections
 * round-robin), so memory is about N times one process's. A worker that dies is replaced, at most
 * maxRestarts times per restartWindowMs; past that the primary stops the rest (`stopped` gives 1).
 * Resolves once every worker listens; rejects (after stopping the others) when one cannot start.
 */
export async function startCluster(config: ServeConfig, options: ClusterOptions = {}): Promise<RunningCluster> {
  if (!cluster.isPrimary) throw new Error('startCluster runs in the primary process only');
  const maxRestarts = options.maxRestarts ?? 5 * config.workers;
  const restartWindowMs = options.restartWindowMs ?? 60_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
  const log = pino({ level: config.logLevel });

  await setUpStore(config, log);
  new RateLimiterClusterMaster();

  // Workers start with the allocator's and V8's settings (processTuning.ts) where the primary did not already.
  cluster.setupPrimary({ exec: workerEntry(), args: [], execArgv: [...v8Tuning(process.execArgv, process.env), ...process.execArgv] });
  const env = { ...mallocTuning(process.env), [WORKER_CONFIG_ENV]: JSON.stringify(config) };
  const workers = new Set<Worker>();
  const startFailures = new Map<Worker, DetourError>();
  const restarts: number[] = [];
  let listening = 0;
  let url = '';
  let started = false;
  let stopping: Promise<number> | undefined;
  let exitCode = 0;
  let onAllExited: (() => void) | undefined;
  let startResult: { resolve(): void; reject(err: Error): void };
  const startedPromise = new Promise<void>((resolve, reject) => (startResult = { resolve, reject }));

  let stoppedResult: (code: number) => void;
  const stoppedPromise = new Promise<number>((resolve) => (stoppedResult = resolve));
  const slots = new Map<Worker, number>();
  const fork = (slot: number) => {
    const worker = cluster.fork({ ...env, [WORKER_SLOT_ENV]: String(slot) });
    slots.set(worker, slot);
    workers.add(worker);
  };

  const stop = (reason: string): Promise<number> =>
    (stopping ??= new Promise<number>((resolve) => {
      log.info(`${reason}: workers finish the requests in flight, then stop`);
      const killer = setTimeout(() => {
        log.warn(`workers still running after ${stopTimeoutMs} ms: killing them`);
        exitCode = 1;
        for (const w of workers) w.process.kill('SIGKILL');
      }, stopTimeoutMs);
      onAllExited = () => {
        clearTimeout(killer);
        resolve(exitCode);
        stoppedResult(exitCode);
      };
      if (workers.size === 0) onAllExited();
      for (const w of workers) w.process.kill('SIGTERM');
    }));

  cluster.on('message', (worker, message: WorkerStartFailed | undefined) => {
    if (message?.type !== 'detour:start-failed') return;
    const error = message.code ? new DetourError(message.code, String(message.message)) : new DetourError('SERVICE_START_FAILED', `cannot start the service: ${message.message}`);
    startFailures.set(worker, error);
  });
  cluster.on('listening', (worker, address) => {
    if (started) {
      log.info(`worker ${worker.id} (pid ${worker.process.pid}) replaced the one that died and serves again`);
      return;
    }
    url ||= `http://${hostForUrl(address.address)}:${address.port}`;
    if (++listening === config.workers) {
      started = true;
      startResult.resolve();
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    workers.delete(worker);
    const slot = slots.get(worker) ?? 0;
    slots.delete(worker);
    if (stopping) {
      // Ended by our SIGTERM before installing its handler: a worker still starting, with nothing in flight.
      const stoppedWhileStarting = code === null && signal === 'SIGTERM';
      if (code !== 0 && !stoppedWhileStarting) exitCode = 1;
      if (workers.size === 0) onAllExited?.();
      return;
    }
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (!started) {
      const error = startFailures.get(worker) ?? new DetourError('SERVICE_START_FAILED', `cannot start the service: worker ${worker.id} exited with ${how} before listening`);
      void stop('a worker could not start').then(() => startResult.reject(error));
      return;
    }
    const now = Date.now();
    while (restarts.length > 0 && restarts[0] < now - restartWindowMs) restarts.shift();
    if (restarts.length >= maxRestarts) {
      log.error(`worker ${worker.id} (pid ${worker.process.pid}) exited with ${how}; ${restarts.length} replacements within ${restartWindowMs} ms already: stopping the service`);
      exitCode = 1;
      void stop('too many workers died');
      return;
    }
    restarts.push(now);
    log.error(`worker ${worker.id} (pid ${worker.process.pid}) exited with ${how}: starting a replacement`);
    fork(slot);
  });

  for (let i = 0; i < config.workers; i++) fork(i);
  await startedPromise;
  log.info(`detour is listening on ${url} with ${config.workers} worker processes (API reference: ${url}/docs)`);
  return {
    url,
    log,
    workerPids: () => [...workers].map((w) => w.process.pid!).filter((pid) => pid !== undefined),
    close: (reason = 'close') => stop(reason),
    stopped: stoppedPromise,
  };
}
