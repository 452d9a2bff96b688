import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import { pino, type Logger } from 'pino';
import type { RateLimiterMemory } from 'rate-limiter-flexible';
import { DetourError } from '../errors.js';
import { openGraph } from '../hierarchy/graphFiles.js';
import { MatrixRunner } from '../routing/MatrixRunner.js';
import { sharedRouterData, type SharedRouterData, type VehicleClassPart } from '../routing/routerThread.js';
import { vehicleOf } from '../routing/vehicle.js';
import { startModuleWorker } from '../workerThread.js';
import { ZoneCalculator, type ZoneWorkerReply } from '../zones/ZoneCalculator.js';
import { serveZoneWork } from '../zones/zoneWorkOverPort.js';
import { RoadIndex } from '../zones/RoadIndex.js';
import { serveLimits } from './loginLimits.js';
import { serveMatrices } from './matricesOverPort.js';
import { ScryptThreads, serveScrypt } from './scryptThreads.js';
import { hostForUrl, type ClusterOptions } from './serveCluster.js';
import { setUpStore, type ServeConfig } from './startService.js';

/** What a service thread is started with (serviceThread.ts). */
export interface ServiceThreadData {
  config: ServeConfig;
  index: number;
  shared: SharedRouterData;
  /** The login limits' port (serveLimits), the matrix worker's (serveMatrices), the scrypt threads' (serveScrypt) and the zone worker's (serveZoneWork). */
  limits: MessagePort;
  matrices: MessagePort;
  scrypt: MessagePort;
  zones: MessagePort;
  /** The thread's share of the process's scrypt verifications under way. */
  maxConcurrentVerifications: number;
  vehicleParts: VehicleClassPart[];
}

/** What a service thread tells the main thread. */
export type ServiceThreadReport =
  | { type: 'listening'; url: string }
  | { type: 'start-failed'; code?: string; message: string }
  | { type: 'vehicleClass'; part: VehicleClassPart };

/** What the main thread tells a service thread. */
export type ServiceThreadOrder = { type: 'stop'; reason: string } | { type: 'vehicleClass'; part: VehicleClassPart };

/** startServiceThreads' options: the cluster's, and who is told of each service thread started. */
export interface ServiceThreadsOptions extends ClusterOptions {
  /** Called with each service thread as it starts, replacements too (supervision, tests). */
  onServiceThread?: (index: number, thread: Worker) => void;
}

/** A running `serve --workers N` on threads: the address they share, and a graceful stop. */
export interface RunningThreads {
  url: string;
  log: Logger;
  /** Service threads running now. */
  threads(): number;
  /** Asks every thread to finish its requests in flight and stop; resolves with 0 when all stopped cleanly, else 1. */
  close(reason?: string): Promise<number>;
  /** Resolves with the exit code once the service has stopped, by close() or because threads died more often than maxRestarts allows (then 1). */
  stopped: Promise<number>;
}

/**
 * Runs `serve --workers N` as N service threads of this process over one copy of the graph. The
 * main thread opens the store once (migrations, demo client), loads the graph and what routing
 * threads read beside it (snap index, road index, reverse adjacency, road times) on
 * SharedArrayBuffers, hosts the login limits every thread counts against (serveLimits), the
 * process's one matrix worker (serveMatrices) and its scrypt threads (serveScrypt, each thread
 * given its share of the verifications under way), then starts the threads: each runs a whole fastify
 * service with its own store connection, trip threads and zone calculations, listening on the same
 * port with reusePort (the kernel spreads connections over them). Thread 0 makes the vehicle
 * classes; the main thread hands each part to the matrix worker and the other threads. A thread
 * that dies is replaced (at most maxRestarts per restartWindowMs, as startCluster).
 */
export async function startServiceThreads(config: ServeConfig, options: ServiceThreadsOptions = {}): Promise<RunningThreads> {
  const maxRestarts = options.maxRestarts ?? 5 * config.workers;
  const restartWindowMs = options.restartWindowMs ?? 60_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 30_000;
  const log = pino({ level: config.logLevel });

  // Sockets with reusePort share a port with any other such socket of the same user, another
  // detour too: a plain socket first, so a port in use fails now as it does for one process.
  if (config.port !== 0) await claimPort(config.port, config.host);
  await setUpStore(config, log);
  const graph = await openGraph(config.graphPath);
  log.info(`graph ${config.graphPath}: ${graph.nodeCount} nodes, ${graph.edgeCount} edges (${graph.meta.attribution ?? 'no attribution'}), shared by ${config.workers} service threads`);
  // Made here once, on shared memory, before the threads adopt them.
  RoadIndex.for(graph);
  const shared = sharedRouterData(graph, undefined, config.prepareVehicles.map((t) => vehicleOf(t)!));
  const matrices = new MatrixRunner(graph, {
    onVehicleError: (err) => log.warn({ err }, 'the matrix worker could not take a vehicle class (its matrices stay exact, slower)'),
  });
  matrices.start();
  const limiters = new Map<string, RateLimiterMemory>();
  // One pool of scrypt threads for the process, its bound on verifications under way shared out.
  const verifications = Math.max(2, Math.floor(availableParallelism() / 2));
  const scrypt = new ScryptThreads(Math.min(verifications, availableParallelism()));
  // One zone worker for the process: owners take turns across the threads, and a zone revision named on several threads is calculated once.
  const zoneCalculator = new ZoneCalculator(graph);
  const sharedZones = new Map<string, Promise<ZoneWorkerReply>>();
  const vehicleParts: VehicleClassPart[] = [];

  const slots: Array<Worker | undefined> = new Array(config.workers).fill(undefined);
  const listening = new Set<Worker>();
  const restarts: number[] = [];
  let url = '';
  let started = false;
  let stopping: Promise<number> | undefined;
  let exitCode = 0;
  let onAllExited: (() => void) | undefined;
  let startResult!: { resolve(): void; reject(err: Error): void };
  const startedPromise = new Promise<void>((resolve, reject) => (startResult = { resolve, reject }));
  let stoppedResult!: (code: number) => void;
  const stoppedPromise = new Promise<number>((resolve) => (stoppedResult = resolve));
  const running = () => slots.filter((w) => w !== undefined).length;

  const stop = (reason: string): Promise<number> =>
    (stopping ??= new Promise<number>((resolve) => {
      log.info(`${reason}: service threads finish the requests in flight, then stop`);
      const killer = setTimeout(() => {
        log.warn(`service threads still running after ${stopTimeoutMs} ms: stopping them`);
        exitCode = 1;
        for (const w of slots) void w?.terminate();
      }, stopTimeoutMs);
      onAllExited = () => {
        clearTimeout(killer);
        void Promise.all([matrices.close(), scrypt.close(), zoneCalculator.close()]).finally(() => {
          resolve(exitCode);
          stoppedResult(exitCode);
        });
      };
      if (running() === 0) onAllExited();
      for (const w of slots) w?.postMessage({ type: 'stop', reason } satisfies ServiceThreadOrder);
    }));

  const startThread = (index: number, port: number): Worker => {
    const limitsChannel = new MessageChannel(), matricesChannel = new MessageChannel(), scryptChannel = new MessageChannel(), zonesChannel = new MessageChannel();
    serveLimits(limitsChannel.port1, limiters);
    serveMatrices(matricesChannel.port1, matrices);
    serveScrypt(scryptChannel.port1, scrypt.derive);
    serveZoneWork(zonesChannel.port1, zoneCalculator, sharedZones, (key, reused) => {
      const zone = key.replace('\n', '/'); // client id / zone name @ revision
      log.info(reused ? `zone ${zone}: service thread ${index} takes the calculation made for another thread` : `zone ${zone}: calculated on the process's zone worker for service thread ${index}`);
    });
    const data: ServiceThreadData = {
      config: { ...config, port }, index, shared, limits: limitsChannel.port2, matrices: matricesChannel.port2, scrypt: scryptChannel.port2, zones: zonesChannel.port2,
      maxConcurrentVerifications: Math.max(1, Math.ceil(verifications / config.workers)), vehicleParts,
    };
    const worker = startModuleWorker(import.meta.url, 'serviceThread', data, { transferList: [limitsChannel.port2, matricesChannel.port2, scryptChannel.port2, zonesChannel.port2] });
    slots[index] = worker;
    options.onServiceThread?.(index, worker);
    let failed: DetourError | undefined;
    worker.on('message', (report: ServiceThreadReport) => {
      if (report.type === 'listening') {
        listening.add(worker);
        if (started) return log.info(`service thread ${index} replaced the one that stopped and serves again`);
        url ||= report.url;
        if (index === 0 && config.port === 0 && !stopping) for (let i = 1; i < config.workers; i++) startThread(i, Number(new URL(report.url).port));
        if (listening.size === config.workers) {
          started = true;
          startResult.resolve();
        }
      } else if (report.type === 'start-failed') {
        failed = report.code ? new DetourError(report.code, report.message) : new DetourError('SERVICE_START_FAILED', `cannot start the service: ${report.message}`);
      } else if (report.type === 'vehicleClass') {
        const part = report.part;
        log.info(`vehicle class ${'roads' in part ? `${part.roads.vehicle.type}: its cells` : `${part.vehicle.type}: its hierarchies`} made by service thread ${index}, shared with the others`);
        vehicleParts.push(part);
        matrices.adoptVehicleClass(report.part);
        for (const other of slots) if (other && other !== worker) other.postMessage({ type: 'vehicleClass', part: report.part } satisfies ServiceThreadOrder);
      }
    });
    worker.on('error', (err) => log.error({ err }, `service thread ${index} failed`));
    worker.on('exit', (code) => {
      limitsChannel.port1.close();
      matricesChannel.port1.close();
      scryptChannel.port1.close();
      zonesChannel.port1.close();
      listening.delete(worker);
      if (slots[index] === worker) slots[index] = undefined;
      if (stopping) {
        if (code !== 0) exitCode = 1;
        if (running() === 0) onAllExited?.();
        return;
      }
      if (!started) {
        const error = failed ?? new DetourError('SERVICE_START_FAILED', `cannot start the service: service thread ${index} stopped with code ${code} before listening`);
        void stop('a service thread could not start').then(() => startResult.reject(error));
        return;
      }
      const now = Date.now();
      while (restarts.length > 0 && restarts[0] < now - restartWindowMs) restarts.shift();
      if (restarts.length >= maxRestarts) {
        log.error(`service thread ${index} stopped with code ${code}; ${restarts.length} replacements within ${restartWindowMs} ms already: stopping the service`);
        exitCode = 1;
        void stop('too many service threads died');
        return;
      }
      restarts.push(now);
      log.error(`service thread ${index} stopped with code ${code}: starting a replacement`);
      startThread(index, Number(new URL(url).port));
    });
    return worker;
  };

  // With port 0, thread 0 first: it picks the port the others then share.
  startThread(0, config.port);
  if (config.port !== 0) for (let i = 1; i < config.workers; i++) startThread(i, config.port);
  await startedPromise;
  url = url.replace(/\/\/(0\.0\.0\.0|\[::\])/, (_m, host: string) => `//${hostForUrl(host.replace(/[[\]]/g, ''))}`);
  log.info(`detour is listening on ${url} with ${config.workers} service threads (API reference: ${url}/docs)`);
  return { url, log, threads: running, close: (reason = 'close') => stop(reason), stopped: stoppedPromise };
}

/** Resolves once a plain listening socket could take `port` (and is closed again); rejects as listen() does (EADDRINUSE...). */
function claimPort(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err) => reject(new DetourError('SERVICE_START_FAILED', `cannot start the service: ${err.message}`)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
