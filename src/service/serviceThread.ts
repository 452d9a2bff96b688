/**
 * The entry of one service thread of `serve --workers N` on threads (startServiceThreads): a whole
 * service over the main thread's graph, on the port the threads share. It stops when the main
 * thread says so, after finishing the requests in flight.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DetourError } from '../errors.js';
import { graphOnSharedData } from '../routing/routerThread.js';
import { MatricesOverPort } from './matricesOverPort.js';
import { scryptOverPort } from './scryptThreads.js';
import type { ServiceThreadData, ServiceThreadOrder, ServiceThreadReport } from './serveThreads.js';
import { startService } from './startService.js';
import { zoneWorkOverPort } from '../zones/zoneWorkOverPort.js';

const data = workerData as ServiceThreadData;
const report = (r: ServiceThreadReport) => parentPort!.postMessage(r);

try {
  const service = await startService(data.config, {
    serviceThread: {
      index: data.index, graph: graphOnSharedData(data.shared), shared: data.shared, matrices: new MatricesOverPort(data.matrices), limits: data.limits,
      scrypt: scryptOverPort(data.scrypt), zones: zoneWorkOverPort(data.zones), maxConcurrentVerifications: data.maxConcurrentVerifications,
      vehicleParts: data.vehicleParts, onVehicleClass: (part) => report({ type: 'vehicleClass', part }),
    },
  });
  parentPort!.on('message', (order: ServiceThreadOrder) => {
    if (order.type === 'vehicleClass') return service.app.adoptVehicleClass(order.part);
    service.app.log.info(`${order.reason}: service thread ${data.index} finishing requests in flight, then stopping`);
    service.close().then(
      () => process.exit(0),
      (err) => {
        service.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
  report({ type: 'listening', url: service.url });
} catch (err) {
  report(err instanceof DetourError ? { type: 'start-failed', code: err.code, message: err.message } : { type: 'start-failed', message: (err as Error).message });
  process.exit(1);
}
