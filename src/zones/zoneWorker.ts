/**
 * Worker thread for large zones: works on the caller's graph and road index through
 * SharedArrayBuffers sent once at start (nothing is copied or rebuilt). It calculates zones
 * (given as a Zone, or as the JSON text of a stored body, parsed here) and checks zone bodies
 * sent as JSON text, so a 100,000-vertex zone never occupies the caller's event loop.
 */
import { parentPort, workerData, isMainThread } from 'node:worker_threads';
import type { PreparedPolygonFields } from '../geo/PreparedPolygon.js';
import { RoadGraph, type GraphIndexes, type GraphMeta, type RoadGraphArrays } from '../graph/RoadGraph.js';
import { withSharedArrays } from '../graph/sharedGraph.js';
import { calculateZone } from './calculateZone.js';
import { RoadIndex } from './RoadIndex.js';
import { storedZone } from './validateZone.js';
import { zoneRules, zoneStatus, type Zone, type ZoneInput } from './Zone.js';
import { checkZoneJsonToZone } from './zoneJson.js';
import { lowerThreadPriority } from '../workerThread.js';
import { jsonTextString, type JsonText } from '../structures/sharedBuffer.js';

/** What ZoneCalculator posts to a new zone worker. */
export interface ZoneWorkerData {
  /** The graph's arrays, on SharedArrayBuffers. */
  arrays: RoadGraphArrays;
  meta: GraphMeta;
  /** The graph's search indexes, the road index among them (adopted by RoadIndex.for, not built again). */
  indexes: GraphIndexes;
}

/**
 * A request: calculate a zone, calculate a stored body's JSON text, or check a body's JSON text
 * (text as UTF-8 bytes is on a SharedArrayBuffer: read here, not copied).
 */
export type ZoneWorkerRequest = { id: number } & ({ zone: Zone } | { zoneJson: JsonText } | { checkJson: JsonText });

/** Same bytes (a memcmp). */
const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;

/** `text` as UTF-8 bytes on a SharedArrayBuffer: the caller reads them without a copy. */
function sharedUtf8(text: string): Uint8Array {
  const bytes = new Uint8Array(new SharedArrayBuffer(Buffer.byteLength(text)));
  Buffer.from(bytes.buffer).write(text);
  return bytes;
}

if (!isMainThread && parentPort) {
  // Background work: the caller's event loop (trips, /health) goes first on a busy machine.
  lowerThreadPriority();
  const { arrays, meta, indexes } = workerData as ZoneWorkerData;
  const graph = new RoadGraph(arrays, meta, indexes);
  // Adopted now: a stored index of another graph fails here, not inside the first zone.
  RoadIndex.for(graph);
  const port = parentPort;
  // The body last checked, as stored (and as the bytes it is stored as, when it came as bytes): a
  // zone is calculated right after it is stored, so its text (compared here, not parsed again)
  // usually arrives next.
  let lastChecked: { json: string; utf8?: Uint8Array; zone: Zone } | undefined;
  const isLastChecked = (json: JsonText) =>
    lastChecked !== undefined && (typeof json === 'string' ? lastChecked.json === json : lastChecked.utf8 !== undefined && sameBytes(lastChecked.utf8, json));
  port.on('message', (request: ZoneWorkerRequest) => {
    const { id } = request;
    if ('checkJson' in request) {
      const sent = request.checkJson;
      const text = jsonTextString(sent);
      const { checked, zone } = checkZoneJsonToZone(text);
      // A body sent as it is stored (the usual JSON.stringify of a client) does not travel back;
      // another stored text sent as bytes goes back as bytes.
      const sameText = checked.ok && checked.json === text;
      const utf8 = !checked.ok || typeof sent === 'string' ? undefined : sameText ? sent : sharedUtf8(checked.json);
      lastChecked = checked.ok && zone ? { json: checked.json, utf8, zone } : undefined;
      port.postMessage({ id, checked: sameText || utf8 ? { ...checked, json: '' } : checked, sameText, utf8: sameText ? undefined : utf8 });
      return;
    }
    let zone: Zone;
    try {
      zone = 'zone' in request ? request.zone : isLastChecked(request.zoneJson) ? lastChecked!.zone : storedZone(JSON.parse(jsonTextString(request.zoneJson)) as ZoneInput);
      lastChecked = undefined;
    } catch (err) {
      port.postMessage({ id, status: zoneStatus('CALCULATION_ERROR', `the stored zone is not valid: ${(err as Error).message}`) });
      return;
    }
    const result = calculateZone(graph, zone);
    const reply = {
      id,
      status: result.status,
      // On SharedArrayBuffers, made here: the service posts a calculated zone's arrays on to its trip
      // threads, which then share them instead of copying megabytes on its event loop.
      roads: withSharedArrays(result.roads),
      roadMetresInside: withSharedArrays(result.roadMetresInside),
      edgeCount: result.edgeCount,
      metresInside: result.metresInside,
      blockedLength: result.blockedLength,
      millis: result.millis,
      // A zone from JSON text exists only here: its polygons go back prepared (typed arrays).
      ...('zoneJson' in request ? {
        polygonNames: zone.polygons.map((p) => p.name),
        prepared: result.prepared.map((p): PreparedPolygonFields => withSharedArrays({ ...p })),
        rules: zoneRules(zone),
      } : {}),
    };
    port.postMessage(reply);
  });
}
