/**
 * Worker thread entry (crcThread.ts): the CRC-32 of the byte pieces posted to it, in their order.
 * state[2] is 1 once it runs; on `end`, the result is in state[1] and state[0] is 1 (-1 when a
 * piece could not be read), notified.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { crc32 } from './crc32.js';

const state = (workerData as { state: Int32Array }).state;
let crc = 0;
let failed = false;
parentPort!.on('message', (piece: Uint8Array | 'end') => {
  if (piece !== 'end') {
    try {
      if (!failed) crc = crc32(piece, crc);
    } catch {
      failed = true;
    }
    return;
  }
  Atomics.store(state, 1, crc | 0);
  Atomics.store(state, 0, failed ? -1 : 1);
  Atomics.notify(state, 0);
});
Atomics.store(state, 2, 1);
