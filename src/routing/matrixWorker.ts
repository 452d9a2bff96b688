/**
 * Worker thread for matrices: a Router over the caller's graph and hierarchy (SharedArrayBuffers
 * are shared, not copied), answering {id, request} messages with the matrix's typed arrays.
 */
import { parentPort, workerData, isMainThread } from 'node:worker_threads';
import { lowerThreadPriority } from '../workerThread.js';
import type { MatrixJobRequest } from './MatrixRunner.js';
import { adoptVehicleClassPart, reviveZone, routerOnSharedData, threadError, type SharedRouterData, type VehicleClassPart } from './routerThread.js';

if (!isMainThread && parentPort) {
  // Background work: the caller's event loop (trips, /health) goes first on a busy machine.
  lowerThreadPriority();
  const router = routerOnSharedData(workerData as SharedRouterData);
  router.prepareMatrices(); // before the first message is read
  const port = parentPort;
  port.on('message', ({ id, request, vehicleClass }: { id: number; request?: MatrixJobRequest; vehicleClass?: VehicleClassPart }) => {
    try {
      if (vehicleClass) {
        // A class's parts made by the trip threads: its matrices then run on its own hierarchies.
        adoptVehicleClassPart(router, vehicleClass);
        port.postMessage({ id, classes: router.vehicleClasses });
        return;
      }
      if (!request) throw new Error('a message with neither a request nor a vehicle class');
      const result = router.matrix({
        origins: request.origins, destinations: request.destinations, calculationMode: request.calculationMode,
        zones: request.zones.map(reviveZone), avoidanceTypes: request.avoidanceTypes, vehicle: request.vehicle, departure: request.departure,
      });
      port.postMessage({ id, result }, [result.distance.buffer as ArrayBuffer, result.duration.buffer as ArrayBuffer]);
    } catch (err) {
      port.postMessage({ id, error: threadError(err) });
    }
  });
}
