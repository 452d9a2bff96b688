import { scrypt, type ScryptOptions } from 'node:crypto';
import type { MessagePort } from 'node:worker_threads';
import { PortRequests, startModuleWorker, WorkerRequests } from '../workerThread.js';

/** Derives a scrypt key (the shape credentials.ts verifies with). */
export type ScryptDerive = (secret: string, salt: Buffer, keyBytes: number, options: ScryptOptions) => Promise<Buffer>;

/** scrypt on libuv's thread pool, at the process's priority. */
export const scryptOnPool: ScryptDerive = (secret, salt, keyBytes, options) =>
  new Promise<Buffer>((resolve, reject) => scrypt(secret, salt, keyBytes, options, (err, key) => (err ? reject(err) : resolve(key))));

interface Reply {
  id: number;
  key?: Uint8Array;
  error?: string;
}

/**
 * scrypt on a few worker threads of their own, each at a lower CPU priority (BACKGROUND_NICE,
 * on Linux): on a machine busy with trips, token verifications take the CPU that is left instead
 * of a share of it, so a flood of token requests slows the token endpoint, not the trips and
 * /health. Threads start on first use; each runs one scrypt at a time and jobs queue per thread
 * (the token endpoint bounds how many are under way). If a thread cannot start, libuv's pool
 * does the work.
 */
export class ScryptThreads {
  private readonly threads: Array<WorkerRequests<Reply> | undefined>;

  constructor(threads: number) {
    this.threads = new Array(Math.max(1, threads)).fill(undefined);
  }

  readonly derive: ScryptDerive = async (secret, salt, keyBytes, options) => {
    let thread: WorkerRequests<Reply>;
    try {
      thread = this.leastBusy();
    } catch {
      return scryptOnPool(secret, salt, keyBytes, options);
    }
    const reply = await thread.request({ secret, salt, keyBytes, options });
    if (reply.error !== undefined) throw new Error(reply.error);
    return Buffer.from(reply.key!.buffer, reply.key!.byteOffset, reply.key!.length);
  };

  /** Stops the threads (derivations under way reject). */
  async close(): Promise<void> {
    const running = this.threads.filter((t): t is WorkerRequests<Reply> => t !== undefined);
    this.threads.fill(undefined);
    await Promise.all(running.map((t) => t.close()));
  }

  /** A started thread with nothing to do, else a new one while there is room, else the least loaded. */
  private leastBusy(): WorkerRequests<Reply> {
    let best: WorkerRequests<Reply> | undefined;
    let free = -1;
    for (let i = 0; i < this.threads.length; i++) {
      const t = this.threads[i];
      if (t === undefined) {
        if (free < 0) free = i;
      } else if (!best || t.pending < best.pending) best = t;
    }
    if (best && (best.pending === 0 || free < 0)) return best;
    return this.start(free);
  }

  private start(slot: number): WorkerRequests<Reply> {
    const thread: WorkerRequests<Reply> = new WorkerRequests(startModuleWorker(import.meta.url, 'scryptWorker', undefined), () => {
      if (this.threads[slot] === thread) this.threads[slot] = undefined;
    });
    this.threads[slot] = thread;
    return thread;
  }
}

type ScryptCall = { id: number; secret: string; salt: Uint8Array; keyBytes: number; options: ScryptOptions };

/**
 * A service thread's scrypt on its process's one ScryptThreads (serveScrypt on the main thread), so
 * `serve --workers N` on threads keeps one set of scrypt threads, not one per service thread.
 */
export function scryptOverPort(port: MessagePort): ScryptDerive {
  const requests = new PortRequests<Reply>(port);
  return async (secret, salt, keyBytes, options) => {
    const reply = await requests.request({ secret, salt, keyBytes, options } satisfies Omit<ScryptCall, 'id'>);
    if (reply.error !== undefined) throw new Error(reply.error);
    return Buffer.from(reply.key!.buffer, reply.key!.byteOffset, reply.key!.length);
  };
}

/** Answers a service thread's scryptOverPort calls on `port` with `derive` (the process's ScryptThreads). */
export function serveScrypt(port: MessagePort, derive: ScryptDerive): void {
  port.on('message', (call: ScryptCall) => {
    derive(call.secret, Buffer.from(call.salt), call.keyBytes, call.options).then(
      (key) => port.postMessage({ id: call.id, key } satisfies Reply),
      (err: unknown) => port.postMessage({ id: call.id, error: (err as Error)?.message ?? String(err) } satisfies Reply),
    );
  });
}
