import type { MessagePort } from 'node:worker_threads';
import type { MatrixResult } from '../routing/matrix.js';
import type { Matrices, MatrixJobRequest, MatrixRunner, MatrixRunRequest } from '../routing/MatrixRunner.js';
import { fromThreadError, threadError, zoneFields, type ThreadError } from '../routing/routerThread.js';

type MatrixCall = { id: number; request: MatrixJobRequest } | { id: number; classes: true };
type MatrixAnswer = { id: number; result: MatrixResult } | { id: number; error: ThreadError } | { id: number; classes: number };

/**
 * A service thread's matrices, computed by the one MatrixRunner of its process's main thread
 * (serveMatrices): one matrix worker and one copy of what matrices prepare (the hierarchies' other
 * metric, a vehicle class's matrix arrays) for every service thread, instead of one each.
 */
export class MatricesOverPort implements Matrices {
  private readonly waiting = new Map<number, { resolve(a: MatrixAnswer): void; reject(e: Error): void }>();
  private nextId = 1;
  private asked = 0;

  constructor(private readonly port: MessagePort) {
    port.on('message', (answer: MatrixAnswer) => {
      this.waiting.get(answer.id)?.resolve(answer);
      this.waiting.delete(answer.id);
      if (this.waiting.size === 0) port.unref();
    });
    port.on('close', () => {
      for (const w of this.waiting.values()) w.reject(new Error('the matrix worker of the process stopped'));
      this.waiting.clear();
    });
    port.unref();
  }

  async run(request: MatrixRunRequest): Promise<MatrixResult> {
    this.asked++;
    try {
      const answer = await this.call({ request: { ...request, zones: (request.zones ?? []).map(zoneFields) } });
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
    const answer = await this.call({ classes: true });
    return 'classes' in answer ? answer.classes : 0;
  }

  private call(message: { request: MatrixJobRequest } | { classes: true }): Promise<MatrixAnswer> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.port.ref();
      this.port.postMessage({ ...message, id } as MatrixCall);
    });
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
