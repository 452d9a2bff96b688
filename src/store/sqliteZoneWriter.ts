/**
 * Worker thread that writes, reads and deletes large zone bodies in a SqliteStore's file through a
 * connection of its own (SqliteStore sends it zones over LARGE_ZONE_WRITE or LARGE_ZONE_VERTICES;
 * a body read goes back as UTF-8 bytes on a SharedArrayBuffer), and checkpoints the write-ahead log
 * for it: writing and syncing megabytes takes tens of milliseconds, which would otherwise hold the
 * service's event loop. WAL mode lets both connections use the file; the write is the same
 * transaction as on the main thread (quota check and write under BEGIN IMMEDIATE), committed
 * before the reply.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { SqliteStore, type ZoneWriteReply, type ZoneWriterData, type ZoneWriteRequest } from './SqliteStore.js';
import { storedZoneFromJson, ZoneQuotaExceeded } from './Store.js';

if (!isMainThread && parentPort) {
  const port = parentPort;
  const { location, driver } = workerData as ZoneWriterData;
  const store = new SqliteStore(location, driver, { zoneWriter: false });
  port.on('message', async (request: ZoneWriteRequest) => {
    const { id } = request;
    try {
      if (request.op === 'checkpoint') {
        store.checkpointWal();
        port.postMessage({ id, checkpointed: true } satisfies ZoneWriteReply);
        return;
      }
      if (request.op === 'getZone') {
        const zone = store.zoneBytes(request.clientId, request.name) ?? null;
        port.postMessage({ id, zone } satisfies ZoneWriteReply);
        return;
      }
      if (request.op === 'deleteZone') {
        port.postMessage({ id, written: await store.deleteZone(request.clientId, request.name) } satisfies ZoneWriteReply);
        return;
      }
      const { op, zone, quota } = request;
      const { bodyJson, ...fields } = zone;
      port.postMessage({ id, written: await store[op](storedZoneFromJson(fields, bodyJson), quota) } satisfies ZoneWriteReply);
    } catch (err) {
      if (err instanceof ZoneQuotaExceeded) {
        const { limit, quota: q, usage, zoneVertices } = err;
        port.postMessage({ id, quotaExceeded: { limit, quota: q, usage, zoneVertices } } satisfies ZoneWriteReply);
      } else {
        port.postMessage({ id, error: (err as Error).message, name: (err as Error).name, code: (err as { code?: string }).code } satisfies ZoneWriteReply);
      }
    }
  });
}
