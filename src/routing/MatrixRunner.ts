import { DetourError } from '../errors.js';
import type { LatLon } from '../geo/coordinates.js';
import type { PreparedPolygonFields } from '../geo/PreparedPolygon.js';
import type { GraphIndexes, GraphMeta, RoadGraph, RoadGraphArrays } from '../graph/RoadGraph.js';
import type { GraphHierarchy, HierarchyGraph } from '../hierarchy/ContractionHierarchy.js';
import { SnapIndex } from '../graph/SnapIndex.js';
import { sharedGraphArrays } from '../graph/sharedGraph.js';
import { startModuleWorker, WorkerRequests } from '../workerThread.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import type { MatrixResult } from './matrix.js';
import type { CalculationMode } from './routeRequest.js';
import type { AvoidanceType } from './avoidance.js';

/** What MatrixRunner posts to a new matrix worker. */
export interface MatrixWorkerData {
  arrays: RoadGraphArrays;
  meta: GraphMeta;
  hierarchy?: GraphHierarchy;
  /** The graph's search indexes (the snap index: shared, not built again here). */
  indexes: GraphIndexes;
  maxSnapDistance?: number;
}

/**
 * A matrix for the worker: zones with their prepared polygons' fields (typed arrays, copied
 * whole by the structured clone; revived there) and not their polygons, which routing never reads.
 */
export interface MatrixJobRequest {
  origins: LatLon[];
  destinations: LatLon[];
  calculationMode?: CalculationMode;
  zones: Array<Omit<CalculatedZone, 'prepared'> & { prepared: PreparedPolygonFields[] }>;
  avoidanceTypes?: AvoidanceType[];
}

type Reply = { id: number; result: MatrixResult } | { id: number; error: { code: string; message: string; details?: Record<string, unknown> } };

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
    origins: LatLon[]; destinations: LatLon[]; calculationMode?: CalculationMode; zones?: CalculatedZone[]; avoidanceTypes?: AvoidanceType[];
  }): Promise<MatrixResult> {
    const zones = (request.zones ?? []).map((z): MatrixJobRequest['zones'][number] => ({
      ...z,
      zone: { name: z.zone.name, polygons: [] },
      prepared: z.prepared.map((p) => ({ ...p })),
    }));
    const reply = await this.startWorker().request({
      request: { origins: request.origins, destinations: request.destinations, calculationMode: request.calculationMode, zones, avoidanceTypes: request.avoidanceTypes },
    });
    if ('error' in reply) throw new DetourError(reply.error.code, reply.error.message, reply.error.details);
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
    if (w) await w.worker.terminate();
  }

  private startWorker(): WorkerRequests<Reply> {
    if (this.worker) return this.worker;
    // The snap index is made here first (on SharedArrayBuffers), so the worker adopts it.
    SnapIndex.for(this.graph);
    const workerData: MatrixWorkerData = {
      arrays: sharedGraphArrays(this.graph),
      meta: this.graph.meta,
      hierarchy: this.graph.hierarchy,
      indexes: this.graph.indexes,
      maxSnapDistance: this.options.maxSnapDistance,
    };
    const requests: WorkerRequests<Reply> = new WorkerRequests(startModuleWorker(import.meta.url, 'matrixWorker', workerData), () => {
      if (this.worker === requests) this.worker = undefined;
    });
    this.worker = requests;
    return requests;
  }
}
