import type { MessagePort } from 'node:worker_threads';
import { PortRequests } from '../workerThread.js';
import type { ZoneCalculator, ZoneWork, ZoneWorkerReply } from './ZoneCalculator.js';

/** Most calculations serveZoneWork keeps, by key, for threads that ask for them later. */
export const SHARED_ZONE_CALCULATIONS = 64;

type ZoneWorkCall = { id: number; owner: string; message: Record<string, unknown>; key?: string };
type ZoneWorkAnswer = ZoneWorkerReply | { id: number; error: string };

/**
 * A service thread's zone worker work on its process's one zone worker (serveZoneWork on the main
 * thread): `serve --workers N` on threads keeps one zone worker and one turn order of owners, and
 * a zone revision named on several threads is calculated once.
 */
export function zoneWorkOverPort(port: MessagePort): ZoneWork {
  const requests = new PortRequests<ZoneWorkAnswer>(port);
  return async (owner, message, key) => {
    const answer = await requests.request({ owner, message, key } satisfies Omit<ZoneWorkCall, 'id'>);
    if ('error' in answer) throw new Error(answer.error);
    return answer;
  };
}

/**
 * Answers a service thread's zoneWorkOverPort calls on `port` with `calculator`'s worker, in its
 * owners' turn. `shared` (one map for every thread's port) holds the calculations asked for by
 * key, under way or done, the SHARED_ZONE_CALCULATIONS latest: a key asked for again is answered
 * from it. `onCalculation` is told of each calculation asked for, and whether it was answered so.
 */
export function serveZoneWork(
  port: MessagePort, calculator: ZoneCalculator, shared: Map<string, Promise<ZoneWorkerReply>>, onCalculation?: (key: string, reused: boolean) => void,
): void {
  port.on('message', ({ id, owner, message, key }: ZoneWorkCall) => {
    let reply = key === undefined ? undefined : shared.get(key);
    if (key !== undefined) onCalculation?.(key, reply !== undefined);
    if (!reply) {
      reply = calculator.inTurn(owner, message);
      if (key !== undefined) {
        shared.set(key, reply);
        // A failed calculation is not kept: the next thread to ask tries again.
        reply.catch(() => shared.get(key) === reply && shared.delete(key));
        if (shared.size > SHARED_ZONE_CALCULATIONS) shared.delete(shared.keys().next().value!);
      }
    }
    reply.then(
      (answer) => port.postMessage({ ...answer, id } satisfies ZoneWorkAnswer),
      (err: unknown) => port.postMessage({ id, error: (err as Error)?.message ?? String(err) } satisfies ZoneWorkAnswer),
    );
  });
}
