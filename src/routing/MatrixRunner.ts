import type { LatLon } from '../geo/coordinates.js';
import type { HierarchyGraph } from '../hierarchy/ContractionHierarchy.js';
import { startModuleWorker, WorkerRequests } from '../workerThread.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import type { MatrixResult } from './matrix.js';
import type { CalculationMode } from './routeRequest.js';
import type { AvoidanceType } from './avoidance.js';
import type { Vehicle } from './vehicle.js';
import { fromThreadError, sharedRouterData, zoneFields, type ThreadError, type VehicleClassPart, type ZoneFields } from './routerThread.js';

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

type Reply = { id: number; result: MatrixResult } | { id: number; error: ThreadError } | { id: number; classes: number };

/** A matrix as callers ask for it: its zones calculated. */
export type MatrixRunRequest = Omit<MatrixJobRequest, 'zones'> & { zones?: CalculatedZone[] };

/**
 * Where a service's matrices are computed: its own MatrixRunner, or one its process's main thread
 * runs for every service thread (MatricesOverPort).
 */
export interface Matrices {
  run(request: MatrixRunRequest): Promise<MatrixResult>;
  /** Matrices asked for here and not answered yet. */
  readonly pending: number;
  /** Vehicle classes whose matrices run on their own hierarchies. */
  vehicleClassesReady(): Promise<number>;
}

/**
 * Runs Router.matrix on one worker thread, so a matrix never holds the calling thread's event
 * loop. The worker shares the graph's, hierarchy's, overlay's and snap index's buffers; matrices
 * queue on it one after another. DetourErrors (bad points, zones not usable) reject with the same code.
 * Call close() when done.
 */
export class MatrixRunner implements Matrices {
  private worker?: WorkerRequests<Reply>;
  /** Vehicle classes' parts given so far: what the worker is sent when it starts. */
  private readonly classParts: VehicleClassPart[] = [];
  /** Vehicle classes the worker routes on routers of their own (hierarchies and cells adopted), as it last said. */
  vehicleClasses = 0;
  /** Class parts posted and not answered yet (not matrices: `pending` leaves them out). */
  private classesPosted = 0;

  constructor(
    readonly graph: HierarchyGraph,
    private readonly options: { maxSnapDistance?: number; onVehicleError?: (error: Error) => void } = {},
  ) {}

  /**
   * A vehicle class's part (TripThreads' onVehicleClass: on shared memory) for the worker to adopt,
   * now or when it starts: the class's matrices then run on its own hierarchies.
   */
  adoptVehicleClass(part: VehicleClassPart): void {
    this.classParts.push(part);
    if (this.worker) this.sendClass(this.worker, part);
  }

  private sendClass(worker: WorkerRequests<Reply>, part: VehicleClassPart): void {
    this.classesPosted++;
    worker.request({ vehicleClass: part }).finally(() => this.classesPosted--).then(
      (reply) => {
        if ('error' in reply) this.options.onVehicleError?.(fromThreadError(reply.error));
        else if ('classes' in reply) this.vehicleClasses = reply.classes;
      },
      () => {}, // the worker stopped: a new one is sent every part
    );
  }

  /** The matrix of `request`, computed on the worker thread. */
  run(request: MatrixRunRequest): Promise<MatrixResult> {
    return this.runPosted({ ...request, zones: (request.zones ?? []).map(zoneFields) });
  }

  /** The same with the zones as a thread posts them. */
  async runPosted(request: MatrixJobRequest): Promise<MatrixResult> {
    const reply = await this.startWorker().request({
      request: { origins: request.origins, destinations: request.destinations, calculationMode: request.calculationMode, zones: request.zones, avoidanceTypes: request.avoidanceTypes, vehicle: request.vehicle, departure: request.departure },
    });
    if ('error' in reply) throw fromThreadError(reply.error);
    if (!('result' in reply)) throw new Error('the matrix worker answered a matrix without one');
    return reply.result;
  }

  vehicleClassesReady(): Promise<number> {
    return Promise.resolve(this.vehicleClasses);
  }

  /** Starts the worker now: it prepares what matrices use (Router.prepareMatrices) before the first one arrives. */
  start(): void {
    this.startWorker();
  }

  /** Matrices posted and not answered yet. */
  get pending(): number {
    return (this.worker?.pending ?? 0) - this.classesPosted;
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
    this.vehicleClasses = 0;
    for (const part of this.classParts) this.sendClass(requests, part);
    return requests;
  }
}
