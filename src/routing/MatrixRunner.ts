import type { Worker } from 'node:worker_threads';
import { DetourError } from '../errors.js';
import type { LatLon } from '../geo/coordinates.js';
import type { RoadGraph } from '../graph/RoadGraph.js';
import { sharedGraphArrays } from '../graph/sharedGraph.js';
import { startModuleWorker } from '../workerThread.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import type { MatrixResult } from './matrix.js';
import type { CalculationMode } from './Router.js';
import type { MatrixWorkerData } from './matrixWorker.js';

/** A matrix for the worker: zones without their prepared polygons (rebuilt there). */
export interface MatrixJobRequest {
  origins: LatLon[];
  destinations: LatLon[];
  calculationMode?: CalculationMode;
  zones: Omit<CalculatedZone, 'prepared'>[];
}

type Reply = { id: number; result: MatrixResult } | { id: number; error: { code: string; message: string; details?: Record<string, unknown> } };

/**
 * Runs Router.matrix on one worker thread, so a matrix never holds the calling thread's event
 * loop (a 100 x 100 matrix around zones takes a few hundred milliseconds on a city). The worker
 * shares the graph's and hierarchy's buffers and builds its own snap index once; matrices queue
 * on it one after another. DetourErrors (bad points, zones not usable) reject with the same code.
 * Call close() when done.
 */
export class MatrixRunner {
  private worker?: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: MatrixResult) => void; reject: (e: Error) => void }>();

  constructor(readonly graph: RoadGraph, private readonly options: { maxSnapDistance?: number } = {}) {}

  /** The matrix of `request`, computed on the worker thread. */
  run(request: { origins: LatLon[]; destinations: LatLon[]; calculationMode?: CalculationMode; zones?: CalculatedZone[] }): Promise<MatrixResult> {
    const worker = this.startWorker();
    const id = this.nextId++;
    const zones = (request.zones ?? []).map(({ prepared: _prepared, ...rest }) => rest);
    return new Promise<MatrixResult>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.ref(); // a matrix under way keeps the process alive; an idle worker does not
      worker.postMessage({ id, request: { origins: request.origins, destinations: request.destinations, calculationMode: request.calculationMode, zones } });
    });
  }

  /** Matrices posted and not answered yet. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Stops the worker thread; matrices still waiting reject. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private startWorker(): Worker {
    if (this.worker) return this.worker;
    const workerData: MatrixWorkerData = {
      arrays: sharedGraphArrays(this.graph),
      meta: this.graph.meta,
      hierarchy: this.graph.hierarchy,
      maxSnapDistance: this.options.maxSnapDistance,
    };
    const worker = startModuleWorker(import.meta.url, 'matrixWorker', workerData);
    worker.on('message', (reply: Reply) => {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      if (!waiter) return;
      if ('result' in reply) waiter.resolve(reply.result);
      else waiter.reject(new DetourError(reply.error.code, reply.error.message, reply.error.details));
    });
    const failAll = (reason: string) => {
      for (const { reject } of this.waiting.values()) reject(new Error(reason));
      this.waiting.clear();
      if (this.worker === worker) this.worker = undefined;
    };
    worker.on('error', (err) => failAll(`matrix worker failed: ${err.message}`));
    worker.on('exit', () => failAll('matrix worker stopped'));
    // After the listeners: adding a 'message' listener refs the worker again.
    worker.unref();
    this.worker = worker;
    return worker;
  }
}
