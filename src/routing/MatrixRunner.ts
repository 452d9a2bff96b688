import type { LatLon } from '../geo/coordinates.js';
import type { HierarchyGraph } from '../hierarchy/ContractionHierarchy.js';
import { startModuleWorker, WorkerRequests } from '../workerThread.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import type { MatrixResult } from './matrix.js';
import type { CalculationMode } from './routeRequest.js';
import type { AvoidanceType } from './avoidance.js';
import type { Vehicle } from './vehicle.js';
import { fromThreadError, sharedRouterData, zoneFields, type ThreadError, type ZoneFields } from './routerThread.js';

/** A matrix for the worker: its zones as ZoneFields. */
export interface MatrixJobRequest {
  origins: LatLon[];
  destinations: LatLon[];
  calculationMode?: CalculationMode;
  zones: ZoneFields[];
  avoidanceTypes?: AvoidanceType[];
  vehicle?: Vehicle;
  /** Epoch milliseconds or ISO-8601 (MatrixRequest.departure). */
  departure?: number | string;
}

type Reply = { id: number; result: MatrixResult } | { id: number; error: ThreadError };

/**
 * Runs Router.matrix on one worker thread, so a matrix never holds the calling thread's event
 * loop. The worker shares the graph's, hierarchy's, overlay's and snap index's buffers; matrices
 * queue on it one after another. DetourErrors (bad points, zones not usable) reject with the same code.
 * Call close() when done.
 */
export class MatrixRunner {
  private worker?: WorkerRequests<Reply>;

  constructor(readonly graph: HierarchyGraph, private readonly options: { maxSnapDistance?: number } = {}) {}

  /** The matrix of `request`, computed on the worker thread. */
  async run(request: {
    origins: LatLon[]; destinations: LatLon[]; calculationMode?: CalculationMode; zones?: CalculatedZone[]; avoidanceTypes?: AvoidanceType[]; vehicle?: Vehicle;
    departure?: number | string;
  }): Promise<MatrixResult> {
    const zones = (request.zones ?? []).map(zoneFields);
    const reply = await this.startWorker().request({
      request: { origins: request.origins, destinations: request.destinations, calculationMode: request.calculationMode, zones, avoidanceTypes: request.avoidanceTypes, vehicle: request.vehicle, departure: request.departure },
    });
    if ('error' in reply) throw fromThreadError(reply.error);
    return reply.result;
  }

  /** Starts the worker now: it prepares what matrices use (Router.prepareMatrices) before the first one arrives. */
  start(): void {
    this.startWorker();
  }

  /** Matrices posted and not answered yet. */
  get pending(): number {
    return this.worker?.pending ?? 0;
  }

  /** Stops the worker thread; matrices still waiting reject. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.close();
  }

  private startWorker(): WorkerRequests<Reply> {
    if (this.worker) return this.worker;
    const workerData = sharedRouterData(this.graph, this.options.maxSnapDistance);
    const requests: WorkerRequests<Reply> = new WorkerRequests(startModuleWorker(import.meta.url, 'matrixWorker', workerData), () => {
      if (this.worker === requests) this.worker = undefined;
    });
    this.worker = requests;
    return requests;
  }
}
