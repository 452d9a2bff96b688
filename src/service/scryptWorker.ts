/**
 * Worker thread for scrypt (ScryptThreads): lowers its own CPU priority first (lowerThreadPriority), then answers
 * {id, secret, salt, keyBytes, options} with {id, key} or {id, error}. Password hashing is the
 * one CPU-heavy task a stranger can make the service do; at a lower priority it takes what trips
 * and /health leave of a busy machine instead of competing with them.
 */
import { scryptSync, type ScryptOptions } from 'node:crypto';
import { isMainThread, parentPort } from 'node:worker_threads';
import { lowerThreadPriority } from '../workerThread.js';

export interface ScryptJob {
  id: number;
  secret: string;
  salt: Uint8Array;
  keyBytes: number;
  options: ScryptOptions;
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  lowerThreadPriority();
  port.on('message', ({ id, secret, salt, keyBytes, options }: ScryptJob) => {
    try {
      const key = scryptSync(secret, salt, keyBytes, options);
      port.postMessage({ id, key: new Uint8Array(key.buffer, key.byteOffset, key.length) });
    } catch (err) {
      port.postMessage({ id, error: (err as Error).message });
    }
  });
}
