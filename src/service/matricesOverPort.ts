import type { MessagePort } from 'node:worker_threads';
import type { MatrixResult } from '../routing/matrix.js';
import type { Matrices, MatrixJobRequest, MatrixRunner, MatrixRunRequest } from '../routing/MatrixRunner.js';
import { fromThreadError, threadError, zoneFields, type ThreadError } from '../routing/routerThread.js';
import { PortRequests } from '../workerThread.js';

type MatrixCall = { id: number; request: MatrixJobRequest } | { id: number; classes: true };
type MatrixAnswer = { id: number; result: MatrixResult } | { id: number; error: ThreadError } | { id: number; classes: number };

/**
 * A service thread's matrices, computed by the one MatrixRunner of its process's main thread
 * (serveMatrices): one matrix worker and one copy of what matrices prepare (the hierarchies' other
 * metric, a vehicle class's matrix arrays) for every service thread, instead of one each.
 */
export class MatricesOverPort implements Matrices {
  private readonly requests: PortRequests<MatrixAnswer>;
  private asked = 0;

  constructor(port: MessagePort) {
    this.requests = new PortRequests(port);
  }

  async run(request: MatrixRunRequest): Promise<MatrixResult> {
    this.asked++;
    try {
      const answer = await this.requests.request({ request: { ...request, zones: (request.zones ?? []).map(zoneFields) } });
      if ('error' in answer) throw fromThreadError(answer.error);
      if (!('result' in answer)) throw new Error('the matrix worker answered a matrix without one');
      return answer.result;
    } finally {
      this.asked--;
    }
  }

  get pending(): number {
    return this.asked;
  }

  async vehicleClassesReady(): Promise<number> {
    const answer = await this.requests.request({ classes: true });
    return 'classes' in answer ? answer.classes : 0;
  }
}

/** Answers a service thread's MatricesOverPort calls on `port` with `runner` (the process's one). */
export function serveMatrices(port: MessagePort, runner: MatrixRunner): void {
  port.on('message', (call: MatrixCall) => {
    if ('classes' in call) return port.postMessage({ id: call.id, classes: runner.vehicleClasses } satisfies MatrixAnswer);
    runner.runPosted(call.request).then(
      (result) => port.postMessage({ id: call.id, result } satisfies MatrixAnswer),
      (err: unknown) => port.postMessage({ id: call.id, error: threadError(err) } satisfies MatrixAnswer),
    );
  });
}
