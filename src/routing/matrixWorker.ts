/**
 * Worker thread for matrices: a Router over the caller's graph and hierarchy (SharedArrayBuffers
 * are shared, not copied), answering {id, request} messages with the matrix's typed arrays.
 */
import { parentPort, workerData, isMainThread } from 'node:worker_threads';
import { PreparedPolygon } from '../geo/PreparedPolygon.js';
import { RoadGraph } from '../graph/RoadGraph.js';
import { withHierarchy } from '../hierarchy/hierarchySections.js';
import type { CalculatedZone } from '../zones/calculateZone.js';
import { DetourError } from '../errors.js';
import { Router } from './Router.js';
import type { MatrixJobRequest, MatrixWorkerData } from './MatrixRunner.js';
import { lowerThreadPriority } from '../workerThread.js';

if (!isMainThread && parentPort) {
  // Background work: the caller's event loop (trips, /health) goes first on a busy machine.
  lowerThreadPriority();
  const { arrays, meta, hierarchy, indexes, maxSnapDistance } = workerData as MatrixWorkerData;
  const router = new Router(withHierarchy(new RoadGraph(arrays, meta, indexes), hierarchy), { maxSnapDistance });
  router.prepareMatrices(); // before the first message is read
  const port = parentPort;
  port.on('message', ({ id, request }: { id: number; request: MatrixJobRequest }) => {
    try {
      // Prepared polygons arrive as plain fields (a clone keeps no class): revived, nothing rebuilt.
      const zones: CalculatedZone[] = request.zones.map((z) => ({ ...z, prepared: z.prepared.map(PreparedPolygon.revive) }));
      const result = router.matrix({
        origins: request.origins, destinations: request.destinations, calculationMode: request.calculationMode, zones, avoidanceTypes: request.avoidanceTypes,
      });
      port.postMessage({ id, result }, [result.distance.buffer as ArrayBuffer, result.duration.buffer as ArrayBuffer]);
    } catch (err) {
      const e = err instanceof DetourError ? { code: err.code, message: err.message, details: err.details } : { code: 'INTERNAL', message: (err as Error).message };
      port.postMessage({ id, error: e });
    }
  });
}
