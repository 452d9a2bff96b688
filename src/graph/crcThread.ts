import { startModuleWorker } from '../workerThread.js';
import { crc32 } from './crc32.js';
import type { ByteChecksum } from './graphCodec.js';
import { isSharedArray } from './sharedGraph.js';

/** How long digest waits for a running thread to catch up (it reads faster than a disk: a file of gigabytes takes seconds). */
const DIGEST_TIMEOUT_MS = 120_000;

/**
 * The CRC-32 of a file's pieces computed on a worker thread while this one goes on reading them:
 * a piece on a SharedArrayBuffer is posted as it is (shared, not copied), any other is copied.
 * digest() blocks until the thread has caught up (Atomics.wait: this thread cannot hear the
 * worker's events then), or, when the thread is not running (it could not start, or failed),
 * computes the CRC here from the pieces kept. close() stops the thread, also when the reading
 * failed before digest.
 */
export function crcOnThread(): ByteChecksum & { close(): void } {
  const state = new Int32Array(new SharedArrayBuffer(12));
  const worker = startModuleWorker(import.meta.url, 'crcWorker', { state });
  worker.unref();
  worker.on('error', () => { /* digest then computes the CRC here */ });
  const pieces: Uint8Array[] = [];
  return {
    update: (bytes) => {
      const piece = isSharedArray(bytes) ? bytes : bytes.slice();
      pieces.push(piece);
      worker.postMessage(piece);
    },
    digest: () => {
      worker.postMessage('end');
      if (Atomics.load(state, 2) === 1 && Atomics.wait(state, 0, 0, DIGEST_TIMEOUT_MS) !== 'timed-out' && state[0] === 1) return state[1] >>> 0;
      let crc = 0;
      for (const piece of pieces) crc = crc32(piece, crc);
      return crc;
    },
    close: () => void worker.terminate(),
  };
}
